"""What an audit asks, before anything is planned: the vocabulary that a suite row, the CLI
flags and the Python API all build — what an audit looks at beyond its named pairs
(:mod:`~dpaudit.spec.coverage`: the pair search's budget, the float64 representation).

It sits below the suite parser, the results and the audit (each of them reads it) and above the
mechanisms' contract.
"""
