"""Neighbouring relations and worst-case pair constructions."""

from dpaudit.neighbours.relations import (add_remove_one, any_single_record, linf, linf_within,
                                          replace_one)

__all__ = ["add_remove_one", "any_single_record", "linf", "linf_within", "replace_one"]
