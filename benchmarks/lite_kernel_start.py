"""Benchmark: the in-browser lab's first kernel start, old build against new, interleaved.

Issue 41 (the first kernel ready in half the time). Not a test: a timing tool for builds of the
lab (``python -m kernelclf.book.lite build --html DIR/html``) placed side by side under one
root folder. Per round and variant: ``LANES`` pages of the lab opened one after the other (one
browser context each, as ``tests/test_lite.py`` does), each timed from its ``goto`` to an idle
kernel with the notebook shown, polled every 0.1 s; phases from the request timing of the page
and its workers (``worker_created``, ``wasm_start``, ``first_whl``: the first wheel asked for,
``first_drive``: the first drive request, which follows ``import pyodide_kernel``), and the CPU
seconds of the browser's processes. Each round alternates the order of the variants.

Usage::

    python -m benchmarks.lite_kernel_start ROOT ROUNDS VARIANT[:LANES] [VARIANT[:LANES] ...]

where ``ROOT/VARIANT/html/lite`` is a built lab; one JSON line per run goes to
``$KSTART_OUT`` (default ``ROOT/results.jsonl``).
"""
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _browser import block_foreign, chromium, serve  # noqa: E402

CHAPTERS = ["00_preface", "06_bayesian_learning"]
_KERNEL = """() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = p && p.sessionContext && p.sessionContext.session && p.sessionContext.session.kernel;
  return {app: !!window.jupyterapp, nb: !!(p && p.content && p.content.widgets && p.content.widgets.length),
          k: k ? {id: k.id, status: k.status, path: p.context.path} : null}; }"""


class Lane:
    def __init__(self, browser, base, variant, chapter):
        self.ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        block_foreign(self.ctx, base, [])
        self.page = self.ctx.new_page()
        self.reqs, self.console, self.marks = [], [], {}
        self.ctx.on("requestfinished", self._req)
        self.page.on("console", lambda m: self.console.append((time.time(), m.text[:100])))
        self.page.on("worker", lambda w: (self.marks.setdefault("worker_created", time.time()),
                                          w.on("console", lambda m: self.console.append(
                                              (time.time(), "W " + m.text[:100])))))
        self.chapter, self.done = chapter, None
        self.url = f"{base}/{variant}/html/lite/lab/index.html?path={chapter}.ipynb"

    def _req(self, r):
        t = r.timing
        self.reqs.append((t["startTime"] / 1000, t["startTime"] / 1000 + t["responseEnd"] / 1000,
                          r.url))

    def go(self):
        self.t0 = time.time()
        self.page.goto(self.url, timeout=60_000)
        self.marks["load"] = time.time()

    def poll(self):
        if self.done:
            return True
        s = self.page.evaluate(_KERNEL)
        now = time.time()
        if s["app"]:
            self.marks.setdefault("app", now)
        if s["nb"]:
            self.marks.setdefault("nb_shown", now)
        k = s["k"]
        if k:
            self.marks.setdefault("kernel_obj", now)
            if k["status"] == "idle" and k["path"] == f"{self.chapter}.ipynb":
                self.done = now
                return True
        if now - self.t0 > 300:
            self.done = float("nan")
            return True
        return False

    def phases(self):
        r = lambda t: round(t - self.t0, 2)  # noqa: E731
        out = {k: r(v) for k, v in self.marks.items()}
        out["idle"] = r(self.done)

        def first(sub, end=False, last=False):
            hits = [x for x in self.reqs if sub in x[2]]
            if not hits:
                return None
            if last:
                return r(max(h[1] for h in hits))
            h = min(hits, key=lambda h: h[0])
            return r(h[1] if end else h[0])
        out["pyext_remote"] = first("pyodide-kernel-extension/static/remoteEntry")
        out["pyodide.js"] = first("pyodide/pyodide.js")
        out["wasm_start"] = first("pyodide.asm.wasm")
        out["wasm_end"] = first("pyodide.asm.wasm", end=True)
        out["stdlib_end"] = first("python_stdlib.zip", end=True)
        out["lock_end"] = first("pyodide-lock.json", end=True)
        out["first_whl"] = first(".whl")
        out["last_whl_end"] = first(".whl", last=True)
        out["n_whl"] = len([x for x in self.reqs if x[2].endswith((".whl", ".zip"))])
        out["n_drive"] = len([x for x in self.reqs if "/api/drive" in x[2]])
        out["first_drive"] = first("/api/drive")
        out["n_req"] = len(self.reqs)
        if os.environ.get("KSTART_REQS"):
            out["reqs"] = sorted((r(a), r(b), u.split("/lite/")[-1][:90]) for a, b, u in self.reqs)
        return out


def _descendants():
    """``{pid: fields of /proc/pid/stat after the name}`` of every descendant of this process
    (the browser and its children)."""
    me, parent, fields = os.getpid(), {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(pid)] = int(f[1])
        fields[int(pid)] = f
    out = {}
    for pid, f in fields.items():
        p = pid
        while p in parent and p != me and p > 1:
            p = parent[p]
        if p == me and pid != me:
            out[pid] = f
    return out


def cpu_seconds():
    """utime + stime of every descendant of this process (the browser and its children)."""
    total = sum(int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
                for f in _descendants().values())
    return total / os.sysconf("SC_CLK_TCK")


def thread_cpu():
    """{(process kind, thread name): seconds} over the descendants of this process."""
    out = {}
    for pid in _descendants():
        try:
            cmd = open(f"/proc/{pid}/cmdline").read().split("\0")
        except OSError:
            continue
        kind = next((a.split("=")[1] for a in cmd if a.startswith("--type=")), "browser")
        if "node" in cmd[0]:
            kind = "node"
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                    raw = fh.read()
            except OSError:
                continue
            name = raw[raw.index("(") + 1:raw.rindex(")")]
            f = raw.rsplit(")", 1)[1].split()
            key = f"{kind}:{name}"
            out[key] = out.get(key, 0) + (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    return out


def run(spec, browser, base):
    variant, _, n = spec.partition(":")
    chapters = CHAPTERS[:int(n)] if n else CHAPTERS
    t0 = thread_cpu()
    c0 = cpu_seconds()
    lanes = []
    for ch in chapters:
        lane = Lane(browser, base, variant, ch)
        lanes.append(lane)
        lane.go()
    while not all([lane.poll() for lane in lanes]):
        time.sleep(0.1)
    time.sleep(0.5)
    res = [lane.phases() for lane in lanes]
    res[0]["cpu_s"] = round(cpu_seconds() - c0, 1)
    t1 = thread_cpu()
    res[0]["threads"] = sorted(((round(v - t0.get(k, 0), 2), k) for k, v in t1.items()
                                if v - t0.get(k, 0) > 0.2), reverse=True)
    logs = [[(round(t - lane.t0, 2), m) for t, m in lane.console] for lane in lanes]
    for lane in lanes:
        lane.ctx.close()
    return res, logs


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 3:       # ``python -m benchmarks`` runs every module with no arguments
        print(__doc__.split("Usage::")[1].strip().splitlines()[0])
        return
    root, rounds, variants = argv[0], int(argv[1]), argv[2:]
    out = open(os.environ.get("KSTART_OUT", f"{root}/results.jsonl"), "a")
    with serve(root) as base, chromium(
            ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]) as browser:
        for i in range(rounds):
            order = variants if i % 2 == 0 else variants[::-1]
            for v in order:
                load = os.getloadavg()[0]
                res, logs = run(v, browser, base)
                rec = {"round": i, "variant": v, "load": round(load, 2),
                       "load_after": round(os.getloadavg()[0], 2), "lanes": res, "logs": logs}
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print(f"r{i} {v:8s} load {load:5.2f} idle "
                      + " ".join(f"{x['idle']:5.1f}" for x in res) + f" cpu {res[0]['cpu_s']}", flush=True)
                print("   ", {k: v for k, v in res[0].items()}, flush=True)


if __name__ == "__main__":
    main()
