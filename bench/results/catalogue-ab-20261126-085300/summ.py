import json, sys, statistics as st
from collections import defaultdict
d = defaultdict(list)
for f in sys.argv[1:]:
    for line in open(f):
        if '{' not in line: continue
        n, b, ph = line.split(' ')[:3]
        js = json.loads(line[line.index('{'):])
        if ph == 'write':
            for k in ('checkpoint_s', 'checkpoint_cpu_s', 'checkpoint_faults'): d[(n, b, k)].append(js[k])
        else:
            for k in ('open_s', 'open_cpu_s', 'open_faults', 'verify_s', 'verify_cpu_s'): d[(n, b, k)].append(js[k])
            d[(n, b, 'restart_s')].append(js['open_s'] + js['verify_s'])
            d[(n, b, 'restart_cpu_s')].append(js['open_cpu_s'] + js['verify_cpu_s'])
def fmt(v):
    return ' / '.join(('%.3f' % x) if isinstance(x, float) else str(x) for x in (min(v), st.median(v), max(v)))
keys = ['checkpoint_s', 'checkpoint_cpu_s', 'checkpoint_faults', 'open_s', 'open_cpu_s', 'open_faults', 'verify_s', 'verify_cpu_s', 'restart_s', 'restart_cpu_s']
for n in ('100000', '1000000'):
    for b in ('main', 'branch', 'final', 'final2'):
        if (n, b, 'checkpoint_s') not in d: continue
        print(n, b, 'runs', len(d[(n, b, 'checkpoint_s')]), len(d[(n, b, 'open_s')]))
        for k in keys:
            if d[(n, b, k)]: print('   %-18s %s' % (k, fmt(d[(n, b, k)])))
for b in ('main', 'branch', 'final', 'final2'):
    for k in ('checkpoint_s', 'checkpoint_cpu_s', 'restart_s', 'restart_cpu_s', 'open_s', 'verify_s'):
        a, z = d.get(('100000', b, k)), d.get(('1000000', b, k))
        if a and z: print('ratio 1M/100K', b, k, 'medians %.1fx' % (st.median(z) / st.median(a)))
