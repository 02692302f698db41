"""The words results are judged in, as enums: what a certificate bounds and what it concluded.

Each enum is a :class:`enum.StrEnum`, so a member *is* its string: it compares equal to it,
hashes like it, and JSON writes it as that string (``json.dumps(Verdict.VIOLATION)`` is
``'"violation"'``).  Files written before these types existed therefore read back unchanged,
and a value read from JSON is turned into a member with ``Verdict(text)``, which raises
``ValueError`` on a word that is not in the vocabulary.

* :class:`Verdict` — a certificate's (and an audit point's) conclusion.
* :class:`Expectation` — what a suite says an audit point should conclude.
* :class:`CertificateNotion` — what a certificate bounds: ε at a δ (``dp``) or Rényi ε at an
  order α (``rdp``).  (A *claim's* notion — pure-dp, zcdp, … — is
  :class:`dpaudit.claims.notions.ClaimNotion`; the two are different vocabularies.)
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """A certificate's conclusion: ``violation`` iff its certified bound exceeds the claimed ε,
    ``consistent`` otherwise, ``error`` when it could not be judged (a failed test, a vacuous
    audit).  An audit point's verdict is the worst of its certificates' (error > violation >
    consistent)."""

    CONSISTENT = "consistent"
    VIOLATION = "violation"
    ERROR = "error"

    @classmethod
    def worst(cls, verdicts) -> "Verdict":
        """``error`` if any is, else ``violation`` if any is, else ``consistent`` (also for
        none)."""
        found = set(verdicts)
        for verdict in (cls.ERROR, cls.VIOLATION):
            if verdict in found:
                return verdict
        return cls.CONSISTENT


class Expectation(StrEnum):
    """What a suite expects of an audit point: a correct mechanism is ``consistent``, a known
    bug a ``violation``."""

    CONSISTENT = "consistent"
    VIOLATION = "violation"


class CertificateNotion(StrEnum):
    """What one certificate bounds: ε(δ) (``dp``) or the Rényi divergence at α (``rdp``)."""

    DP = "dp"
    RDP = "rdp"


__all__ = ["CertificateNotion", "Expectation", "Verdict"]
