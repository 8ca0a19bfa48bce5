"""Run the stages of ``make test`` in order and print how long each took.

Usage: ``python .ci/stages.py NAME=COMMAND [NAME=COMMAND ...]``

Each ``COMMAND`` runs in a shell; the first failing stage stops the run (as ``make`` does).
The summary (one line a stage: seconds and ``ok``/``FAILED``/``not run``) is printed at the
end either way, and the exit status is that of the failing stage (0 when all passed).
"""
import subprocess
import sys
import time


def main(argv):
    stages = [a.split("=", 1) for a in argv]
    times, status = {}, 0
    t_all = time.monotonic()
    for name, command in stages:
        print(f"\n==== stage {name}: {command}", flush=True)
        t0 = time.monotonic()
        rc = subprocess.call(command, shell=True)
        times[name] = (time.monotonic() - t0, rc)
        if rc:
            status = rc
            break
    total = time.monotonic() - t_all
    print("\n==== make test: time per stage")
    for name, _ in stages:
        if name in times:
            sec, rc = times[name]
            print(f"  {name:<12} {sec / 60:6.1f} min  {'ok' if rc == 0 else f'FAILED ({rc})'}")
        else:
            print(f"  {name:<12} {'':6}      not run")
    print(f"  {'total':<12} {total / 60:6.1f} min", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
