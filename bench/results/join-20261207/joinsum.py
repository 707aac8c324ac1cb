import json,statistics as st,sys
rows={}; modes=[]
for line in open(sys.argv[1]):
    mode,js=line.split(' ',1)
    if mode not in modes: modes.append(mode)
    d=json.loads(js)
    k=(d['pattern'],d['writers'],d['readers'])
    rows.setdefault(k,{}).setdefault(mode,[]).append(d['mib_s'])
for k in sorted(rows):
    r=rows[k]; line=f"{k[0]:6s} {k[1]}->{k[2]}"
    for m in modes:
        v=r[m]; line+=f" | {m} {st.median(v):5.0f} [{min(v):.0f}-{max(v):.0f}]"
    line+=" | " + " ".join(f"{m}/{modes[0]} {st.median(r[m])/st.median(r[modes[0]]):.2f}" for m in modes[1:])
    print(line)
