"""The CPU a measurement ran on, for every Python benchmark and check: the
model name alone does not tell machines apart ("AMD EPYC" is printed by Zen 3
and Zen 4 VMs alike, which differ in AVX-512 and VNNI, and so in both
engines' int8 kernels), so the description adds the vendor's family and
model numbers and the vector extensions the engines choose kernels by, as
bench/web/machine.mjs does for the browser benchmarks."""
import os
import platform

FLAGS_OF_INTEREST = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16",
                     "avx512_fp16", "amx_tile", "asimd", "sve")


def cpuinfo_fields(path="/proc/cpuinfo"):
    """The first processor's fields of /proc/cpuinfo (empty off Linux)."""
    fields = {}
    try:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def cpu_flags(path="/proc/cpuinfo"):
    f = cpuinfo_fields(path)
    return set((f.get("flags") or f.get("Features") or "").split())


def has_bf16(path="/proc/cpuinfo"):
    """Native bfloat16 products (AVX512-BF16 or AMX), which Kiln's bf16
    sessions use; elsewhere they compute float32."""
    return bool({"avx512_bf16", "amx_bf16"} & cpu_flags(path))


def describe_cpu(path="/proc/cpuinfo"):
    """e.g. 'AMD EPYC (AuthenticAMD family 25 model 17; avx2 fma avx512f
    avx512_vnni avx512_bf16)'."""
    f = cpuinfo_fields(path)
    name = f.get("model name") or platform.processor() or "unknown CPU"
    ids = ""
    if f.get("cpu family"):
        ids = f"{f.get('vendor_id', '')} family {f['cpu family']} model {f.get('model', '?')}"
    flags = cpu_flags(path)
    ext = " ".join(x for x in FLAGS_OF_INTEREST if x in flags)
    inside = "; ".join(p for p in (ids.strip(), ext) if p)
    return f"{name} ({inside})" if inside else name


def describe_machine():
    """The CPU and how many logical CPUs this process can use."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{describe_cpu()}, {n} logical CPUs"
