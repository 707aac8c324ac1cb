import sys, numpy as np, cairn
with cairn.Store(sys.argv[1]) as st:
    st.put_array("nan", np.array([np.nan, np.nan]), start=(0,), global_shape=(5,), statistics=True)
    st.put_array("nan", np.array([np.nan, 1.0, -np.inf]), start=(2,), global_shape=(5,), statistics=True)
    st.put_array("u64", np.array([2**64 - 1, 2**63], dtype=np.uint64), statistics=True)
    st.put_array("i64", np.array([-2**63, 2**63 - 1], dtype=np.int64), statistics=True)
    st.put_array("f32", np.array([np.float32(3.4e38), -np.float32(np.inf)], dtype=np.float32), statistics=True)
    st.put_array("empty", np.zeros((0, 3)), statistics=True)
    for bad in (4095, 1, 2**64, -4096, 4096 * 3):
        try:
            st.put_array("g", np.zeros(10), checksum_grain=bad); print("grain", bad, "OK")
        except Exception as e: print("grain", bad, type(e).__name__, str(e)[:100])
    try:
        st.put_array("x", np.zeros((2, 2)), start=(0,)); print("start len OK?")
    except Exception as e: print("start len:", type(e).__name__, str(e)[:100])
    try:
        st.put_array("x", np.zeros((2, 2)), global_shape=(1, 2)); print("global smaller OK?")
    except Exception as e: print("global smaller:", type(e).__name__, str(e)[:100])
    st.commit()
    for n in ("nan", "u64", "i64", "f32", "empty"):
        print(n, st.array(n).blocks)
