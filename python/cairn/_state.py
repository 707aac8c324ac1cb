"""cairn.save / cairn.load: nested state dicts (the way DCP and Orbax users
work).

The state is a tree of dicts (str keys), lists and tuples whose leaves are
NumPy arrays, NumPy scalars, torch tensors (when torch is importable; CPU
copies are saved), int, float, bool, str, bytes, None, and cairn.Shard.

- **Sharded arrays**: a leaf ``cairn.Shard(local, start, global_shape)``
  is this rank's piece of an array spread over the ranks. It is saved as
  the global array "<prefix>/<path>" (Store.put_array: every rank puts its
  piece; a rank whose piece is empty puts nothing, so a Shard empty on
  every rank keeps the array of the previous save), so it restores on any
  rank count: load with ``like`` holding a Shard (an empty or old local
  array with the wanted start and the same global shape) fills the piece
  that Shard asks for, whatever pieces were saved; ``like`` holding a plain
  array of the global shape gets the whole array; without ``like`` the
  leaf comes back as a cairn.Array (read it with ``[...]`` while the store
  is open).
- **Everything else** (replicated arrays, scalars, the tree) is saved by
  each rank in its own namespace, as one object per leaf "<prefix>/<path>"
  (path components joined by "/", with "%" and "/" in names escaped as %25
  and %2F, a leading "." as %2E and an empty name as "%", so that any str
  key is kept apart from the others and from the save's own objects) tagged with its kind, dtype and shape, plus the tree's shape as
  one more object, "<prefix>/.tree" (JSON). Per rank, not once: values that
  differ by rank (a random generator's state, a rank's own counters) come
  back exactly on the same rank count. On another rank count (the store's
  writer_ranks differ from its size) every rank loads rank 0's: values not
  sharded are taken to be replicated, as DCP does.

Arrays are written from their own memory and read straight into new
arrays, or into the arrays of `like`.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from ._errors import Corruption, InvalidArgument

try:
    import numpy as _np
except ImportError:  # pragma: no cover - numpy is optional
    _np = None


def _torch():
    try:
        import torch  # noqa: F401
        return torch
    except ImportError:
        return None


def _esc(name: str) -> str:
    """A dict key as one path component: "%" and "/" escaped, a leading "."
    as %2E and the empty key as a lone "%", so that no component is empty
    or starts with "." (the save's own objects, ".tree" and ".root", do),
    and distinct keys stay distinct."""
    e = name.replace("%", "%25").replace("/", "%2F")
    if e.startswith("."):
        e = "%2E" + e[1:]
    return e or "%"


def _scalar_bytes(kind: str, v: Any) -> bytes:
    if kind == "int":
        return str(int(v)).encode()
    if kind == "float":
        return float(v).hex().encode()
    if kind == "bool":
        return b"1" if v else b"0"
    if kind == "str":
        return v.encode("utf-8")
    if kind == "bytes":
        return bytes(v)
    return b""  # none


def _scalar_from(kind: str, b: bytes) -> Any:
    if kind == "int":
        return int(b.decode())
    if kind == "float":
        return float.fromhex(b.decode())
    if kind == "bool":
        return b == b"1"
    if kind == "str":
        return b.decode("utf-8")
    if kind == "bytes":
        return bytes(b)
    return None


class Shard:
    """This rank's piece of an array sharded over the ranks, for cairn.save
    and cairn.load: `local` (a NumPy array or a CPU torch tensor) is the box
    at `start` of an array of `global_shape` (NumPy's index order). The
    pieces of all ranks must not overlap (the commit checks it)."""

    __slots__ = ("local", "start", "global_shape")

    def __init__(self, local: Any, start: Any, global_shape: Any) -> None:
        self.local = local
        self.start = tuple(int(x) for x in start)
        self.global_shape = tuple(int(x) for x in global_shape)

    def __repr__(self) -> str:
        shape = getattr(self.local, "shape", None)
        return f"cairn.Shard(local shape {tuple(shape) if shape is not None else None}, " \
               f"start={self.start}, global_shape={self.global_shape})"


def _shard_numpy(torch: Any, key: str, v: Any) -> Any:
    """The local piece of a Shard as a NumPy array (a CPU tensor's own memory)."""
    if torch is not None and isinstance(v, torch.Tensor):
        if v.dtype == torch.bfloat16:
            raise InvalidArgument(f"cairn.save: '{key}': bfloat16 shards are not supported")
        return v.detach().cpu().contiguous().numpy()
    if _np is None:
        raise InvalidArgument(f"cairn.save: '{key}': a Shard needs numpy")
    return _np.asarray(v)


def _load_rank(store: Any, rank: Optional[int]) -> int:
    if rank is not None:
        return rank
    return store.rank if store.writer_ranks == store.size else 0


def save(store: Any, state: Any, prefix: str = "state", commit: bool = True) -> Optional[int]:
    """Puts `state` (a nested dict; see the module's doc) into this rank's
    namespace under `prefix`, removes objects of an earlier save under
    `prefix` that the new state no longer has, and (collectively, if
    `commit`) commits. Returns the revision, or None without commit.

    A save owns everything under ``prefix + "/"``: every object of this
    rank's namespace there (and, from rank 0, every global array there)
    that the new state does not have is deleted, whoever put it. So two
    states must not be saved under nested prefixes: a save under "state"
    deletes what a save under "state/x" wrote (and then "state/x" no longer
    loads). Use sibling prefixes ("state", "state_x") instead."""
    torch = _torch()
    written: List[str] = []
    shards: List[str] = []

    def leaf(path: str, v: Any) -> Dict[str, Any]:
        key = f"{prefix}/{path}" if path else f"{prefix}/.root"
        if isinstance(v, Shard):
            is_torch = torch is not None and isinstance(v.local, torch.Tensor)
            local = _shard_numpy(torch, key, v.local)
            shards.append(key)
            if local.size > 0:
                store.put_array(key, local, start=v.start, global_shape=v.global_shape)
            return {"shard": key, "torch": is_torch}
        written.append(key)
        if torch is not None and isinstance(v, torch.Tensor):
            t = v.detach().cpu().contiguous()
            tdt = str(t.dtype).replace("torch.", "")
            if t.dtype == torch.bfloat16:  # no numpy dtype: its bits as uint16
                arr = t.view(torch.int16).numpy().view(_np.uint16)
            else:
                arr = t.numpy()
            store.put(key, _np.ascontiguousarray(arr),
                      {"kind": "torch", "dtype": arr.dtype.str, "torch_dtype": tdt,
                       "shape": _np.asarray(arr.shape, dtype=_np.int64)})
            return {"leaf": key}
        if _np is not None and isinstance(v, (_np.ndarray, _np.generic)):
            arr = _np.asarray(v)  # (ascontiguousarray would make a scalar 1-D)
            if not arr.flags.c_contiguous:
                arr = _np.ascontiguousarray(arr)
            if arr.dtype.hasobject:
                raise InvalidArgument(f"cairn.save: '{key}' is an object array")
            kind = "ndarray" if isinstance(v, _np.ndarray) else "npscalar"
            store.put(key, arr, {"kind": kind, "dtype": arr.dtype.str,
                                 "shape": _np.asarray(arr.shape, dtype=_np.int64)})
            return {"leaf": key}
        for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str),
                            ("bytes", (bytes, bytearray))):
            if isinstance(v, types):
                store.put(key, _scalar_bytes(kind, v), {"kind": kind})
                return {"leaf": key}
        if v is None:
            store.put(key, b"", {"kind": "none"})
            return {"leaf": key}
        raise InvalidArgument(f"cairn.save: '{key}' holds a {type(v).__name__}, which cannot be saved "
                              "(arrays, scalars, str, bytes, None, and dicts/lists of them can)")

    def walk(path: str, v: Any) -> Dict[str, Any]:
        if isinstance(v, dict):
            out = {}
            for k, x in v.items():
                if not isinstance(k, str):
                    raise InvalidArgument(f"cairn.save: dict keys must be str, got {k!r} at '{path}'")
                out[k] = walk(f"{path}/{_esc(k)}" if path else _esc(k), x)
            return {"dict": out}
        if isinstance(v, (list, tuple)):
            items = [walk(f"{path}/{i}" if path else str(i), x) for i, x in enumerate(v)]
            return {"tuple" if isinstance(v, tuple) else "list": items}
        return leaf(path, v)

    tree = walk("", state)
    tree_key = f"{prefix}/.tree"
    store.put(tree_key, json.dumps(tree).encode(), {"kind": "tree"})
    keep = set(written) | {tree_key}
    for k in store.keys():
        if k.startswith(prefix + "/") and k not in keep:
            store.delete(k)
    if store.rank == 0:  # arrays are global: one rank removes the stale ones
        now = set(shards)
        for a in store.arrays():
            if a.name.startswith(prefix + "/") and a.name not in now:
                store.delete_array(a.name)
    return store.commit() if commit else None


def load(store: Any, like: Any = None, prefix: str = "state", rank: Optional[int] = None) -> Any:
    """The state saved under `prefix`: the tree and the leaves not sharded
    from this rank's namespace (rank 0's if the store was written by
    another number of ranks; `rank`'s if given). With `like` (a state of
    the same structure), arrays and CPU tensors of `like` whose shape and
    dtype match are filled in place and returned; a cairn.Shard of `like`
    gets the piece it asks for of the saved global array (module doc)."""
    rank = _load_rank(store, rank)
    tree_key = f"{prefix}/.tree"
    raw = store.get(tree_key, rank=rank)
    try:
        tree = json.loads(raw)
    except ValueError as e:
        raise Corruption(f"cairn.load: '{tree_key}' is not a saved tree: {e}") from None

    def malformed(what: Any) -> Corruption:
        return Corruption(f"cairn.load: '{tree_key}' is not a saved tree: {what}")
    torch = _torch()
    # The array leaves are read together at the end, with one get_many
    # (Store::MultiGet: all reads planned and merged in file order) into
    # like's arrays or new np.empty ones.
    pending_keys: List[str] = []
    pending_outs: List[Any] = []

    def later(key: str, out: Any) -> Any:
        pending_keys.append(key)
        pending_outs.append(out)
        return out

    def leaf(key: str, like_v: Any) -> Any:
        tags = store.tags(key, rank=rank)
        kind = tags.get("kind")
        if kind in ("ndarray", "npscalar", "torch"):
            if _np is None:
                raise InvalidArgument(f"cairn.load: '{key}' is an array: numpy is needed")
            try:
                dt = _np.dtype(tags["dtype"])
                shape = tuple(int(x) for x in tags["shape"])
                if kind == "torch":
                    str(tags["torch_dtype"])
            except (KeyError, TypeError, ValueError) as e:
                raise Corruption(f"cairn.load: '{key}' has bad array tags {tags}: {e!r}") from None
            if dt.hasobject:
                raise Corruption(f"cairn.load: '{key}' has bad array tags {tags}: an object dtype")
            if kind == "torch":
                if like_v is not None and torch is not None and isinstance(like_v, torch.Tensor) \
                        and like_v.device.type == "cpu" and tuple(like_v.shape) == shape \
                        and like_v.is_contiguous() and str(like_v.dtype).replace("torch.", "") \
                        == tags["torch_dtype"] and like_v.dtype != torch.bfloat16:
                    later(key, like_v.numpy())
                    return like_v
                arr = later(key, _np.empty(shape, dtype=dt))
                if torch is None:
                    return arr
                if tags["torch_dtype"] == "bfloat16":
                    return torch.from_numpy(arr.view(_np.int16)).view(torch.bfloat16)
                return torch.from_numpy(arr)
            if isinstance(like_v, _np.ndarray) and like_v.shape == shape and like_v.dtype == dt \
                    and like_v.flags.c_contiguous and like_v.flags.writeable:
                return later(key, like_v)
            if kind == "npscalar":
                return store.get(key, dtype=dt, shape=shape, rank=rank)[()]
            return later(key, _np.empty(shape, dtype=dt))
        if kind in ("int", "float", "bool", "str", "bytes", "none"):
            raw = store.get(key, rank=rank)
            try:
                return _scalar_from(kind, raw)
            except ValueError as e:  # UnicodeDecodeError too
                raise Corruption(f"cairn.load: '{key}' is not a saved {kind}: {e}") from None
        raise Corruption(f"cairn.load: '{key}' has no known kind (tags {tags})")

    def shard(name: str, like_v: Any) -> Any:
        arr = store.array(name)
        if isinstance(like_v, Shard):
            if like_v.global_shape != arr.shape:
                raise InvalidArgument(f"cairn.load: '{name}' has shape {arr.shape}, like's Shard "
                                      f"asks for global_shape {like_v.global_shape}")
            local = like_v.local
            if torch is not None and isinstance(local, torch.Tensor):
                if local.device.type != "cpu" or local.dtype == torch.bfloat16:
                    raise InvalidArgument(f"cairn.load: '{name}': only CPU tensors of NumPy "
                                          "dtypes are filled")
                local = local.numpy()
            if not isinstance(local, _np.ndarray):
                raise InvalidArgument(f"cairn.load: '{name}': a Shard's local must be an array")
            if len(like_v.start) != arr.ndim or local.ndim != arr.ndim:
                raise InvalidArgument(f"cairn.load: '{name}' has {arr.ndim} dimensions, like's Shard "
                                      f"{local.ndim} (start {like_v.start})")
            if local.size:
                fill(name, arr, like_v.start, local)
            return like_v
        if isinstance(like_v, _np.ndarray) and like_v.shape == arr.shape and like_v.flags.writeable:
            fill(name, arr, (0,) * arr.ndim, like_v)
            return like_v
        return arr

    def fill(name: str, arr: Any, start: Any, local: Any) -> None:
        if not local.flags.writeable:
            raise InvalidArgument(f"cairn.load: '{name}': like's array is read-only")
        if local.dtype == arr.dtype and local.flags.c_contiguous:
            arr.read(start, local.shape, out=local)
        else:
            local[...] = arr.read(start, local.shape)

    def build(node: Dict[str, Any], like_v: Any) -> Any:
        if not isinstance(node, dict):
            raise malformed(f"a node is a {type(node).__name__}: {str(node)[:80]}")
        if "leaf" in node or "shard" in node:
            key = node.get("leaf", node.get("shard"))
            if not isinstance(key, str):
                raise malformed(f"a leaf names {str(key)[:80]}")
            return leaf(key, like_v) if "leaf" in node else shard(key, like_v)
        if "dict" in node:
            if not isinstance(node["dict"], dict):
                raise malformed(f"a dict node holds {str(node['dict'])[:80]}")
            lk = like_v if isinstance(like_v, dict) else {}
            return {k: build(n, lk.get(k)) for k, n in node["dict"].items()}
        seq = node.get("list", node.get("tuple"))
        if not isinstance(seq, list):
            raise malformed(f"a node of no known form: {str(node)[:80]}")
        ll = like_v if isinstance(like_v, (list, tuple)) and len(like_v) == len(seq) else [None] * len(seq)
        items = [build(n, x) for n, x in zip(seq, ll)]
        return tuple(items) if "tuple" in node else items

    state = build(tree, like)
    if pending_keys:
        store.get_many(pending_keys, outs=pending_outs, rank=rank)
    return state
