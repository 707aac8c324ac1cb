# Probe 7: `cairn get --select --npy` against the Python binding's indexing.
import random, subprocess, sys, os, numpy as np, cairn
store, tool = sys.argv[1], sys.argv[2]
rnd = random.Random(5)
bad = 0; n = 0
with cairn.Store(store, mode="r") as st:
    for a in st.arrays():
        for k in range(12):
            parts, key = [], []
            nd = rnd.randint(0, a.ndim)  # trailing dims omitted
            for d in range(nd):
                m = a.shape[d]
                c = rnd.randint(0, 6)
                if c == 0: parts.append(":"); key.append(slice(None))
                elif c == 1 and m > 0:
                    i = rnd.randint(-m, m - 1); parts.append(str(i)); key.append(i)
                elif c == 2:
                    lo = rnd.randint(0, m); parts.append(f"{lo}:{lo}"); key.append(slice(lo, lo))
                elif c == 3:
                    lo = rnd.randint(0, m); parts.append(f"{lo}:"); key.append(slice(lo, None))
                elif c == 4:
                    hi = rnd.randint(0, m); parts.append(f":{hi}"); key.append(slice(None, hi))
                elif c == 5 and m > 0:
                    lo = rnd.randint(-m, -1); parts.append(f"{lo}:"); key.append(slice(lo, None))
                else:  # also c 1 and 5 of an empty dimension
                    lo = rnd.randint(0, m); hi = rnd.randint(lo, m); parts.append(f"{lo}:{hi}"); key.append(slice(lo, hi))
            sel = ",".join(parts)
            want = a[tuple(key)] if key else a[...]
            want = np.asarray(want)
            out = "/tmp/arrays8_cli_select.npy"
            if os.path.exists(out): os.remove(out)
            args = [tool, "get", store, a.name, "--npy", "-o", out] + (["--select", sel] if sel else [])
            r = subprocess.run(args, capture_output=True, text=True)
            n += 1
            if r.returncode != 0:
                print("FAIL rc", r.returncode, a.name, repr(sel), r.stderr.strip()[:200]); bad += 1; continue
            got = np.load(out)
            if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
                print("FAIL differs", a.name, repr(sel), got.dtype, got.shape, want.dtype, want.shape); bad += 1
            # raw output equals the bytes
            r2 = subprocess.run([tool, "get", store, a.name] + (["--select", sel] if sel else ["--array"]), capture_output=True)
            if r2.returncode != 0 or r2.stdout != np.ascontiguousarray(want).tobytes():
                print("FAIL raw", a.name, repr(sel), r2.returncode, len(r2.stdout), want.nbytes, r2.stderr[:200]); bad += 1
print(f"p7: {n} selections, {bad} failures")
