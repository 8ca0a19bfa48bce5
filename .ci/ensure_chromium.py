"""Make sure Debian's Chromium is there for the browser test; install it as root if not."""
import os
import shutil
import subprocess
import sys

path = os.environ.get("KERNELCLF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if os.path.exists(path):
    sys.exit(0)
if os.geteuid() == 0 and shutil.which("apt-get"):
    print("installing Debian's chromium for the browser test")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)
    sys.exit(0)
sys.exit("Chromium is missing: install Debian's `chromium` package (sudo apt-get install chromium)")
