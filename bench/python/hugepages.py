"""Transparent huge pages behind NumPy arrays, for bench.py and probe/read_memory.py."""


def anon_huge_kib(arrays):
    """KiB of transparent huge pages backing the arrays' memory
    (AnonHugePages of /proc/self/smaps over their address ranges); -1 if
    /proc/self/smaps cannot be read."""
    spans = [(a.ctypes.data, a.ctypes.data + a.nbytes) for a in arrays]
    total, inside = 0, False
    try:
        with open("/proc/self/smaps") as f:
            for line in f:
                head = line.split(None, 1)[0]
                if "-" in head and not head.endswith(":"):
                    lo, hi = (int(x, 16) for x in head.split("-"))
                    inside = any(lo < e and b < hi for b, e in spans)
                elif inside and head == "AnonHugePages:":
                    total += int(line.split()[1])
    except OSError:
        return -1
    return total
