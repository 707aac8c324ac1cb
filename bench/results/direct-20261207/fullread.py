import json,sys,statistics as st
d=json.load(open(sys.argv[1])); phase=sys.argv[2] if len(sys.argv)>2 else 'read'
rows={}
for c in d['cells']:
    runs=[r for r in c['runs'] if r['phase']==phase]
    if not runs: continue
    # per rep: bandwidth = bytes*ranks / max seconds ... use mib_s of rank 0 records (aggregate?)
    byrep={}
    for r in runs: byrep.setdefault((r.get('round'),r['rep']),[]).append(r)
    bws=[]; cpus=[]
    for k,rs in byrep.items():
        bws.append(rs[0]['mib_s']); cpus.append(sum(x.get('cpu_seconds',0) for x in rs))
    rows[(c['workload'],c['ranks'],c['system'])]=(st.median(bws),min(bws),max(bws),st.median(cpus)*1e3,len(bws))
systems=sorted({k[2] for k in rows})
for w in sorted({k[0] for k in rows}):
  for n in sorted({k[1] for k in rows if k[0]==w}):
    line=f"{w:7s} n={n}"
    for s in systems:
      if (w,n,s) in rows:
        m,lo,hi,cpu,k=rows[(w,n,s)]; line+=f" | {s} {m:5.0f} [{lo:.0f}-{hi:.0f}] cpu {cpu:.0f}ms"
    print(line)
