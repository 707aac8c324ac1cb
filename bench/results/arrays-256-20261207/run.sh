#!/bin/bash
cd /work/main
B=/tmp/bb-new/bench/arrays/array_bench
python3 bench/arrays/run_arrays.py $B --mib 256 --writers 1,2,4 --readers 1,2,4,8 --reps 5 --patterns full,slab0,boxes --systems cairn,hdf5-contig --json /tmp/arr256/a.json > /tmp/arr256/a.txt 2> /tmp/arr256/a.err
python3 bench/arrays/run_arrays.py $B --mib 256 --writers 8 --readers 2,4,8 --reps 5 --patterns full,slab0,boxes --systems cairn,hdf5-contig --json /tmp/arr256/b.json > /tmp/arr256/b.txt 2> /tmp/arr256/b.err
python3 bench/arrays/run_arrays.py $B --mib 256 --writers 8 --readers 1 --reps 5 --patterns full,slab0,boxes --systems cairn --json /tmp/arr256/c.json > /tmp/arr256/c.txt 2> /tmp/arr256/c.err
echo done > /tmp/arr256/DONE
