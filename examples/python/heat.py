#!/usr/bin/env python3
"""heat.py: the heat example (examples/heat/heat.cc) in mpi4py + NumPy.

The same 2-D heat-diffusion mini-app: the same grid split over the same
2-D process grid (MPI_Dims_create), the same initial state, the same
5-point stencil evaluated in the same order (so the result is bit-identical
to the C++ example's, on any number of ranks), the same checkpoint (each
rank puts its block as "grid", tagged with its place in the global grid,
and the step as "step", then all commit one revision), the same restart
from the newest revision, and the same last line: "checksum <16 hex
digits>", FNV-1a 64 of the final global grid. Its stores and the C++
example's are interchangeable.

usage: mpiexec -n 4 python3 heat.py --store DIR [--steps N] [--every K]
                                    [--nx NX] [--ny NY] [--sleep-ms MS] [--async]
"""
import argparse
import struct
import sys
import time

import numpy as np
from mpi4py import MPI

import cairn


def block_start(n, p, i):
    return n * i // p


def initial(nx, ny, y0, x0, ly, lx):
    """The deterministic initial temperature of the block (three hot disks
    and a warm band), from global integer coordinates, as heat.cc."""
    m = max(1, min(nx, ny))
    spots = [(ny * 3 // 10, nx * 3 // 10, (m // 8) ** 2, 100.0),
             (ny * 7 // 10, nx * 6 // 10, (m // 6) ** 2, 60.0),
             (ny * 2 // 10, nx * 8 // 10, (m // 12) ** 2, 150.0)]
    gy = np.arange(y0, y0 + ly, dtype=np.int64)[:, None]
    gx = np.arange(x0, x0 + lx, dtype=np.int64)[None, :]
    t = np.zeros((ly, lx))
    for cy, cx, r2, temp in spots:  # added in the same order as heat.cc
        t = t + np.where((gy - cy) ** 2 + (gx - cx) ** 2 <= r2, temp, 0.0)
    band = (gy * 10 // ny == 8) & (gx < nx // 2)
    return t + np.where(band, 25.0, 0.0)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--nx", type=int, default=512)
    ap.add_argument("--ny", type=int, default=512)
    ap.add_argument("--sleep-ms", type=int, default=0)
    ap.add_argument("--async", dest="use_async", action="store_true",
                    help="checkpoint with commit_async (puts copied into staging memory)")
    cfg = ap.parse_args()

    world = MPI.COMM_WORLD
    rank, nranks = world.rank, world.size
    root = rank == 0

    def fail(msg):
        print(f"heat.py: rank {rank}: {msg}", file=sys.stderr, flush=True)
        world.Abort(1)

    dims = MPI.Compute_dims(nranks, 2)
    if cfg.ny < dims[0] or cfg.nx < dims[1]:
        if root:
            print(f"heat.py: a {cfg.ny}x{cfg.nx} grid is too small for {dims[0]}x{dims[1]} processes",
                  file=sys.stderr)
        return 2
    cart = world.Create_cart(dims, periods=[False, False], reorder=False)
    cy, cx = cart.Get_coords(rank)
    north, south = cart.Shift(0, 1)
    west, east = cart.Shift(1, 1)
    y0 = block_start(cfg.ny, dims[0], cy)
    ly = block_start(cfg.ny, dims[0], cy + 1) - y0
    x0 = block_start(cfg.nx, dims[1], cx)
    lx = block_start(cfg.nx, dims[1], cx + 1) - x0

    u = np.zeros((ly + 2, lx + 2))
    v = np.zeros((ly + 2, lx + 2))
    options = {}
    if cfg.use_async:
        largest = world.allreduce(ly * lx * 8, op=MPI.MAX)
        options["staging_bytes"] = largest + 2 * (1 << 20)
    try:
        store = cairn.Store(cfg.store, comm=world, **options)
    except cairn.Error as e:
        fail(f"opening the store: {type(e).__name__}: {e}")
    if root:
        print(f"heat: {nranks} rank{'' if nranks == 1 else 's'} as {dims[0]}x{dims[1]}, grid "
              f"{cfg.ny}x{cfg.nx}, {cfg.steps} steps, checkpoint every {cfg.every}, store {cfg.store}",
              flush=True)

    step = 0
    if store.revision > 0:
        (step,) = struct.unpack("<Q", store.get("step"))
        tags = store.tags("grid")
        if (tags["ny"], tags["nx"]) != (cfg.ny, cfg.nx):
            fail(f"the store holds a {tags['ny']}x{tags['nx']} grid; use --ny {tags['ny']} "
                 f"--nx {tags['nx']} or a new --store")
        if (tags["y0"], tags["x0"], tags["ly"], tags["lx"]) != (y0, x0, ly, lx):
            fail("the stored block does not match this rank's block (different process grid?)")
        u[1:-1, 1:-1] = store.get("grid", dtype=np.float64, shape=(ly, lx))
        if world.allreduce(step, op=MPI.MIN) != world.allreduce(step, op=MPI.MAX):
            fail("ranks restored different steps from one revision")
        if step > cfg.steps:
            fail(f"the store is at step {step}, beyond --steps {cfg.steps}")
        if root:
            print(f"restart from revision {store.revision} at step {step}", flush=True)
    else:
        u[1:-1, 1:-1] = initial(cfg.nx, cfg.ny, y0, x0, ly, lx)
        if root:
            print("new run: no revision in the store, starting at step 0", flush=True)

    grid_tags = {"ny": cfg.ny, "nx": cfg.nx, "y0": y0, "x0": x0, "ly": ly, "lx": lx,
                 "dtype": "float64"}
    alpha = 0.2
    col_out, col_in = np.empty(ly), np.empty(ly)
    pending = None
    t_start, t_ckpt, checkpoints = time.perf_counter(), 0.0, 0
    while step < cfg.steps:
        # Halo exchange: rows north/south, then columns west/east (as heat.cc).
        cart.Sendrecv(u[1, 1:-1], north, 0, u[ly + 1, 1:-1], south, 0)
        cart.Sendrecv(u[ly, 1:-1], south, 1, u[0, 1:-1], north, 1)
        if west != MPI.PROC_NULL or east != MPI.PROC_NULL:
            col_out[:] = u[1:-1, 1]
            cart.Sendrecv(col_out, west, 2, col_in, east, 2)
            if east != MPI.PROC_NULL:
                u[1:-1, lx + 1] = col_in
            col_out[:] = u[1:-1, lx]
            cart.Sendrecv(col_out, east, 3, col_in, west, 3)
            if west != MPI.PROC_NULL:
                u[1:-1, 0] = col_in
        mid = u[1:-1, 1:-1]
        v[1:-1, 1:-1] = mid + alpha * ((u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:])
                                       - 4.0 * mid)
        u, v = v, u
        step += 1
        if pending is not None and pending.test():
            pending.wait()
            pending = None
        if cfg.sleep_ms > 0:
            time.sleep(cfg.sleep_ms / 1000.0)
        if cfg.every > 0 and step % cfg.every == 0:
            t0 = time.perf_counter()
            store.put("grid", np.ascontiguousarray(u[1:-1, 1:-1]), tags=grid_tags)
            store.put("step", struct.pack("<Q", step))
            if cfg.use_async:
                pending = store.commit_async()
                rev = pending.revision
            else:
                rev = store.commit()
            dt = time.perf_counter() - t0
            t_ckpt += dt
            checkpoints += 1
            if root:
                extra = " blocked, committing in the background" if cfg.use_async else ""
                print(f"checkpoint rev {rev} at step {step} ({dt * 1e3:.1f} ms{extra})", flush=True)
    if pending is not None:
        pending.wait()
    t_total = time.perf_counter() - t_start

    block = np.ascontiguousarray(u[1:-1, 1:-1])
    blocks = cart.gather((y0, x0, block), root=0)
    store.close()
    if root:
        grid = np.empty((cfg.ny, cfg.nx))
        for by, bx, b in blocks:
            grid[by:by + b.shape[0], bx:bx + b.shape[1]] = b
        print(f"done: step {step}, {checkpoints} checkpoint{'' if checkpoints == 1 else 's'} in this "
              f"run ({t_ckpt:.3f} s of {t_total:.3f} s)")
        print(f"total heat {float(grid.sum()):.9g}, peak {float(grid.max()):.9g}")
        print(f"checksum {fnv1a64(grid.astype('<f8').tobytes()):016x}", flush=True)
    cart.Free()
    return 0


if __name__ == "__main__":
    sys.exit(main())
