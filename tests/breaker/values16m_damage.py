import re, subprocess, sys, mmap, os
# Usage: values16m_damage.py BREAKER_VALUES16M STORE  (STORE made by
# `breaker_values16m write STORE`). Flips one byte (a) inside wanted
# values (16 MiB - 1, 16 MiB, 16 MiB + 1, 40 MiB: first bytes, request
# boundaries, last byte) and small ones, (b) inside the unwanted values
# between them, which merged MultiGet requests read; runs `read` after each
# and restores the byte. A wanted value must be Corruption naming its key
# (Get, MultiGet, full stream), never data; every other read must be OK.
rd, d = sys.argv[1], sys.argv[2]
path = os.path.join(d, 'data.00000')
f = open(path, 'r+b'); mm = mmap.mmap(f.fileno(), 0)
pos = {}
for m in re.finditer(rb'\x01MK:([^:]+):(\d+)\x02', mm):
    pos[(m.group(1).decode(), int(m.group(2)))] = m.start()
def where(key, off):
    base = off - off % 4096
    p = pos.get((key, base))
    return None if p is None else p + off % 4096
def run(extra=()):
    r = subprocess.run([rd, 'read', d, *extra], capture_output=True, text=True)
    res = {}
    for line in r.stdout.splitlines():
        op, k, c = line.split(' ', 2)
        res[(op, k)] = c
    return r.returncode, res, r.stdout
def flip(p):
    mm[p] ^= 0x5a; mm.flush()
bad = 0
def case(name, key, off, expect_key):
    global bad
    p = where(key, off)
    if p is None: print('no position for', key, off); return
    flip(p)
    rc, res, out = run()
    flip(p)
    problems = []
    for (op, k), c in res.items():
        if c in ('WRONG', 'NOT-ZEROED', 'SHORT', 'corrupt-unnamed'): problems.append((op, k, c))
        elif k != expect_key and c != 'ok': problems.append((op, k, c))
        elif k == expect_key and op in ('get', 'mget', 'mgetbuf', 'stream') and c != 'corrupt': problems.append((op, k, c))
    kc = sorted(set((op.split('@')[0], c) for (op, k), c in res.items() if k == expect_key))
    print(f'{name}: {key}@{off} rc={rc} problems={problems[:8]} n={len(problems)} target={kc}')
    if problems: bad += 1
for key, n in [('v16m-1', (16<<20)-1), ('v16m', 16<<20), ('v16m+1', (16<<20)+1), ('v40m', 40<<20)]:
    for off in [40, 4096*3+100, (16<<20)-41 if n >= (16<<20)-40 else None, n-1, (16<<20), (16<<20)+1, 33<<20]:
        if off is None or off >= n: continue
        # off < 32 within a 4K block is the marker; the byte still belongs to the value
        case('a', key, off, key)
for i in [0, 1, 57, 119]:
    case('a-small', 's%03d' % i, 500, 's%03d' % i)
    case('b-gap', 'gap%03d' % i, 2000, 'gap%03d' % i)
print('cases with problems:', bad)
sys.exit(1 if bad else 0)
