"""The command line of the benchmark modules that read ``sys.argv`` themselves
(``benchmarks.svm``, ``svm_broad``, ``strings``, ``bayes``): ``-h`` / ``--help`` prints the
module's description, and an unknown or incomplete option stops with a message, both
before anything is timed (an unknown option used to start the full run)."""


def check_argv(argv, name, doc, flags=(), options=None):
    """``True`` after printing ``doc`` when ``argv`` asks for help; ``False`` when every
    item of ``argv`` is one of ``flags`` or one of ``options`` (a mapping from option to
    the name of its value) followed by a value; otherwise ``SystemExit`` with a message
    that lists what ``name`` accepts."""
    options = options or {}
    if "-h" in argv or "--help" in argv:
        print(doc)
        return True
    k = 0
    while k < len(argv):
        if argv[k] in options and k + 1 < len(argv):
            k += 2
        elif argv[k] in flags:
            k += 1
        else:
            accepts = [*flags, *(f"{o} {v}" for o, v in options.items())]
            raise SystemExit(f"{name}: unknown or incomplete option {argv[k]!r}; it takes "
                             f"{', '.join(accepts) if accepts else 'no options'} "
                             "(--help: its description)")
    return False
