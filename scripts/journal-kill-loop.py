#!/usr/bin/env python3
"""usage: scripts/journal-kill-loop.py BIN-DIR [RUNS [SEED [WORK-DIR]]]   (BIN-DIR: .build/debug, built)

Hostile loop for the open-span journal: RUNS (50) runs of otlpwire-demo on one directory, killed (SIGKILL) at random
moments (--crash-at PHASE; timeout -s KILL at random fractions of a second; as soon as the traces file grows),
then a clean run. Every traces file any run wrote is collected (by content, right after each run) and read with
otlp-dump; every launch (AppStart span) must be there exactly once, each run's launches a gap-free prefix of the
replayed sequence."""
import hashlib, json, os, random, shutil, signal, subprocess, sys, time
BIN = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 27
random.seed(SEED)
root = sys.argv[4] if len(sys.argv) > 4 else "/tmp/journal-kill-loop"
shutil.rmtree(root, ignore_errors=True)
os.makedirs(root + "/collected")
out = root + "/out"
phases = ["launch.configure_logging", "launch.settings_migration", "launch.auth_routing", "launch.configure_appearance",
          "launch.background_refresh_setup", "launch.deep_link"]
seen_inodes = set()
collected = []
def collect():
    if not os.path.isdir(out): return
    for name in sorted(os.listdir(out)):
        if not (name.startswith("traces") and name.endswith(".u32be.bin")): continue
        path = os.path.join(out, name)
        st = os.lstat(path)
        # By content, not inode: a deleted file's inode number is reused by the next file.
        key = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if key in seen_inodes or st.st_size == 0: continue
        seen_inodes.add(key)
        target = f"{root}/collected/{len(collected):03d}.u32be.bin"
        shutil.copyfile(path, target)
        collected.append(target)
modes = {}
run_pids = {}
reused_pids = []
for run in range(RUNS + 1):
    cmd = [BIN + "/otlpwire-demo", "out"]
    mode = "clean" if run == RUNS else ["crash-at", "timeout", "file-grows"][run % 3]
    before = os.stat(out + "/traces.u32be.bin").st_size if os.path.exists(out + "/traces.u32be.bin") else -1
    if mode == "crash-at":
        cmd = [BIN + "/otlpwire-demo", "--crash-at", random.choice(phases), "out"]
    p = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if mode == "timeout":
        delay = random.uniform(0.0, 0.35)
        try: p.wait(timeout=delay)
        except subprocess.TimeoutExpired: p.send_signal(signal.SIGKILL)
    elif mode == "file-grows":
        # Killed as soon as the traces file (a new one, or the old one) grows: right after an exporter's write.
        ino = None
        while p.poll() is None:
            try:
                st = os.stat(out + "/traces.u32be.bin")
                if ino is None: ino = st.st_ino if st.st_size <= max(before, 0) else None
                if st.st_size > 0 and (st.st_ino != ino or st.st_size > max(before, 0)) and (st.st_ino, st.st_size) != (ino, before):
                    p.send_signal(signal.SIGKILL); break
            except FileNotFoundError: pass
            time.sleep(0.0002)
    o, e = p.communicate()
    if p.pid in run_pids: reused_pids.append(p.pid)
    run_pids[p.pid] = (run, mode, cmd[2] if mode == "crash-at" else "")
    modes.setdefault(mode, [0, 0])
    modes[mode][0] += 1
    if p.returncode == -signal.SIGKILL: modes[mode][1] += 1
    if p.returncode not in (0, -signal.SIGKILL):
        print("run", run, mode, "exit", p.returncode, e.decode()[-500:])
    collect()
# Read every collected file with otlp-dump.
launches = []  # (pid, start, scenario/type, spanId, interrupted)
for path in collected:
    r = subprocess.run([BIN + "/otlp-dump", "print", "--format", "json", path], capture_output=True, text=True)
    if r.returncode != 0: print("otlp-dump", path, r.returncode, r.stderr[-300:])
    for line in r.stdout.splitlines():
        d = json.loads(line)
        for rs in d.get("resourceSpans", []):
            res = {a["key"]: list(a["value"].values())[0] for a in rs.get("resource", {}).get("attributes", [])}
            for ss in rs.get("scopeSpans", []):
                for sp in ss.get("spans", []):
                    if sp["name"] != "AppStart": continue
                    at = {a["key"]: list(a["value"].values())[0] for a in sp.get("attributes", [])}
                    launches.append((int(res.get("process.pid", -1)), int(sp["startTimeUnixNano"]),
                                     at.get("app.launch.scenario", "own cold start"), sp["spanId"],
                                     at.get("launch.interrupted", False)))
ids = [l[3] for l in launches]
dups = len(ids) - len(set(ids))
by_pid = {}
for l in launches: by_pid.setdefault(l[0], []).append(l)
# The full sequence: from a run that ended cleanly (the last one).
full = None
for pid, ls in by_pid.items():
    seq = [l[2] for l in sorted(ls, key=lambda l: l[1])]
    if full is None or len(seq) > len(full): full = seq
gaps = 0
for pid, ls in by_pid.items():
    seq = [l[2] for l in sorted(ls, key=lambda l: l[1])]
    if len(set(l[3] for l in ls)) != len(ls): pass
    uniq = []
    for l in sorted(ls, key=lambda l: l[1]):
        if l[3] not in [u[3] for u in uniq]: uniq.append(l)
    if [u[2] for u in uniq] != full[:len(uniq)]:
        gaps += 1
        if pid in reused_pids: print("  (this pid was given to two runs)")
        print("pid", pid, "launches are not a prefix of the sequence:", [u[2] for u in uniq])
interrupted = sum(1 for l in launches if l[4])
print("the replayed sequence:", full, "; pids given to two runs:", len(reused_pids))
print(f"runs: {RUNS} killed + 1 clean; modes {modes}; traces files collected {len(collected)}")
print(f"processes with launches: {len(by_pid)}; launches (AppStart) found: {len(launches)}, distinct {len(set(ids))}, "
      f"exported twice: {dups}; interrupted: {interrupted}; runs whose launches are not a gap-free prefix: {gaps}")
missing = [info for pid, info in run_pids.items() if info[1] in ("crash-at", "clean") and pid not in by_pid]
crash_interrupted = sum(1 for pid, info in run_pids.items() if info[1] == "crash-at" and pid in by_pid
                        and sorted(by_pid[pid], key=lambda l: l[1])[-1][4])
print(f"crash-at runs: {sum(1 for i in run_pids.values() if i[1] == 'crash-at')}, their launch found interrupted: {crash_interrupted}; "
      f"crash-at or clean runs whose launches are missing: {len(missing)}")
if os.environ.get("JOURNAL_LOOP_DEBUG"):
    for pid, ls in by_pid.items():
        print(pid, run_pids.get(pid), len(ls), [l[4] for l in sorted(ls, key=lambda l: l[1])])
    for pid, info in run_pids.items():
        if info[1] == "crash-at" and pid not in by_pid: print("crash-at run without launches:", pid, info)
