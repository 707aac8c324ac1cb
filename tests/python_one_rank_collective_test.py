"""A collective call of the Python package with an argument that Python
refuses on one rank only (before the call reaches the library): every
rank must fail (the others naming that rank and its cause), nothing may
hang, and the next collective call must line up. Run under mpiexec with 2
or more ranks (ctest: python_one_rank_collective_np2/np4, with a timeout:
before the fix pin/unpin/drop hung, query_all aborted the job with an MPI
error, and the open named a stand-in option instead of the cause).

    mpiexec -n N python python_one_rank_collective_test.py DIR
"""
import os
import sys

from mpi4py import MPI

import cairn

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
base = sys.argv[1]
failures = []
if rank == 0:
    import shutil
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
comm.Barrier()


def expect_all_fail(what, odd, call, cause):
    """call() on every rank (odd: whether this rank is the one with the bad
    argument): all raise; the others' message names 'rank <odd rank>' and
    `cause`, the odd rank's names `cause`."""
    odd_rank = comm.allreduce(rank if odd else size, op=MPI.MIN)
    try:
        call()
        failures.append(f"{what} (odd rank {odd_rank}): rank {rank} did not raise")
        return
    except Exception as e:  # noqa: BLE001
        msg = str(e)
    if cause not in msg or (not odd and f"rank {odd_rank}" not in msg):
        failures.append(f"{what} (odd rank {odd_rank}): rank {rank}: {msg!r} lacks {cause!r}"
                        + ("" if odd else f" or 'rank {odd_rank}'"))


for odd_rank in sorted({0, size - 1}):
    odd = rank == odd_rank
    path = os.path.join(base, f"s{odd_rank}")
    # the open: the cause, not a stand-in option
    expect_all_fail("Store(keep_revison=2)", odd,
                    lambda: cairn.Store(path, comm, **({"keep_revison": 2} if odd else {})),
                    "unknown option 'keep_revison'")
    expect_all_fail("Store(mode='w')", odd,
                    lambda: cairn.Store(path, comm, mode="w" if odd else "a"), "mode must be")
    comm.Barrier()
    if os.path.exists(os.path.join(path, "MANIFEST")):
        failures.append(f"rank {rank}: a refused open created the store")
    st = cairn.Store(path, comm)
    st.put("a", b"1", tags={"s": "abc"})
    if rank == 0:
        st.put_shared("sh", b"shared")
    r1 = st.commit()
    st.commit()
    # pin / unpin / drop with a revision Python refuses
    expect_all_fail("pin(-1)", odd, lambda: st.pin(-1 if odd else r1), "out of range")
    expect_all_fail("unpin('1')", odd, lambda: st.unpin("1" if odd else r1), "must be an int")
    expect_all_fail("drop(2**64)", odd, lambda: st.drop(2 ** 64 if odd else r1), "out of range")
    if any(r.pinned for r in st.revisions()):
        failures.append(f"rank {rank}: a refused pin pinned")
    # query_all with a condition Python refuses
    expect_all_fail("query_all(prefix(5))", odd,
                    lambda: st.query_all(s=cairn.prefix(5) if odd else cairn.prefix("ab")),
                    "must be str or bytes")
    # get_shared with a key Python refuses: that rank raises, nobody hangs
    try:
        st.get_shared(5 if odd else "sh")
        if odd:
            failures.append(f"rank {rank}: get_shared(5) did not raise")
    except Exception as e:  # noqa: BLE001
        if odd and not isinstance(e, (TypeError, cairn.InvalidArgument)):
            failures.append(f"rank {rank}: get_shared(5): {e!r}")
    # the next collective calls line up
    st.pin(r1)
    if [r.revision for r in st.revisions() if r.pinned] != [r1]:
        failures.append(f"rank {rank}: pin after: {st.revisions()}")
    hits = st.query_all(s=cairn.prefix("ab"))
    if hits != [(r, "a") for r in range(size)]:
        failures.append(f"rank {rank}: query_all after: {hits}")
    if st.get_shared("sh") != b"shared":
        failures.append(f"rank {rank}: get_shared after")
    st.close()

allf = comm.gather(failures)
if rank == 0:
    allf = [f for x in allf for f in x]
    for f in allf:
        print("FAIL", f)
    print(f"python_one_rank_collective np {size}: {len(allf)} failures")
sys.exit(1 if comm.bcast(len(allf) if rank == 0 else None) else 0)
