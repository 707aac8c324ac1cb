# python save_key_collision.py   (single process)
# cairn.save maps a dict key "" at the top level to the object
# "<prefix>/.root" -- the same object as the key ".root"; and the key ".tree"
# to "<prefix>/.tree", the tree object itself. Both saves succeed, and then:
#  {"": 1, ".root": 2} loads as {"": 2, ".root": 2}   (silently wrong data)
#  {".tree": 1, "a": 2} raises Corruption on load    (the leaf is overwritten)
# Expected (_state.py module doc: nested dicts with str keys are saved, and
# load returns them): the state back, or InvalidArgument at save time.
import os, tempfile
import cairn
d = tempfile.mkdtemp()
for i, state in enumerate(({"": 1, ".root": 2}, {".tree": 1, "a": 2}, {"x": {"": 1}, "x%2F": 3})):
    with cairn.Store(os.path.join(d, f"s{i}")) as s:
        cairn.save(s, state)
    with cairn.Store(os.path.join(d, f"s{i}"), mode="r") as s:
        try:
            got = cairn.load(s)
            print("saved", state, "loaded", got, "OK" if got == state else "WRONG DATA")
        except cairn.Error as e:
            print("saved", state, "load raised", type(e).__name__, e)
