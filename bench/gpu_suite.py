"""GPU benchmarks of the example kernels: Kiln (through kiln-run) against
PyTorch eager and torch.compile on the same machine, in the same run
(matmuls against torch.matmul and Triton), with the device's
bandwidth measured by a large device-to-device copy; and the cost of a
launch from Python (Kiln, PyTorch, Triton where installed).

    python3 bench/gpu_suite.py --out DIR [--kiln-run PATH]

Each kernel runs on arrays far larger than the L2 cache; times are medians
of device-event timings over many launches after a warm-up, inputs random
and non-zero. Kiln's correctness is checked by the GPU tests, not here.
Writes DIR/gpu_suite.md (a table) and DIR/gpu_suite.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 100


def torch_time(fn, repeats: int = REPEATS) -> float:
    """Median seconds of `fn()` by CUDA events, after a warm-up."""
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def kiln_time(kiln_run: str, kernel: str, grid: tuple[int, ...],
              args: list[str], source: Path | None = None) -> float:
    """Median seconds of a launch of an example kernel (or of `source`),
    from kiln-run."""
    source = source or ROOT / "docs" / "examples" / f"{kernel}.mlir"
    command = [kiln_run, str(source),
               f"--kernel={kernel}", "--target=gpu", "--check=none",
               f"--repeat={REPEATS}", "--grid=" + ",".join(map(str, grid))]
    command += [f"--arg={a}" for a in args]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    return float(re.search(r"([0-9.]+) ms per launch", result.stdout)[1]) / 1e3


def launch_overhead(torch) -> dict[str, float]:
    """Microseconds per launch from Python of a one-element kernel: Kiln's
    @kiln.jit (cached specialization), a PyTorch op and, where Triton is
    installed, a Triton kernel; wall clock over many launches."""
    sys.path.insert(0, str(ROOT / "python"))
    import kiln
    import kiln.language as kl

    @kiln.jit
    def bump(x_ptr, n, BLOCK: kl.constexpr):
        offsets = kl.arange(0, BLOCK)
        mask = offsets < n
        kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1.0,
                 mask=mask)

    x = torch.zeros(1, device="cuda")
    launches = {"kiln @jit": lambda: bump[(1,)](x, 1, BLOCK=32),
                "torch x.add_(1)": lambda: x.add_(1)}
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def triton_bump(x_ptr, n, BLOCK: tl.constexpr):
            offsets = tl.arange(0, BLOCK)
            mask = offsets < n
            tl.store(x_ptr + offsets,
                     tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)

        launches["triton @jit"] = lambda: triton_bump[(1,)](x, 1, BLOCK=32)
    except ImportError:
        pass
    result = {}
    for name, launch in launches.items():
        for _ in range(20):
            launch()
        torch.cuda.synchronize()
        count = 2000
        start = time.perf_counter()
        for _ in range(count):
            launch()
        torch.cuda.synchronize()
        result[name] = (time.perf_counter() - start) / count * 1e6
    return result


def matmul_rates(torch, kiln_run: str, out: Path) -> list[dict]:
    """TFLOP/s of fp16 and bf16 matmuls (fp32 accumulation) at 1024, 4096
    and 8192: Kiln's docs/examples/matmul.mlir (64x64x32 blocks, tensor
    cores, 3-stage cp.async pipeline; its bf16 twin written next to the
    results) through kiln-run, torch.matmul (cuBLAS) and, where installed,
    a Triton kernel with the same blocking, in the same run."""
    bf16_source = out / "matmul_bf16.mlir"
    bf16_source.write_text((ROOT / "docs" / "examples" / "matmul.mlir")
                           .read_text().replace("f16", "bf16"))
    triton_matmul = None
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def triton_matmul(a, b, c, M, N, K, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr):
            rows = tl.program_id(0) * BM + tl.arange(0, BM)
            cols = tl.program_id(1) * BN + tl.arange(0, BN)
            ks = tl.arange(0, BK)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, K, BK):
                x = tl.load(a + rows[:, None] * K + (k + ks)[None, :])
                y = tl.load(b + (k + ks)[:, None] * N + cols[None, :])
                acc += tl.dot(x, y)
            tl.store(c + rows[:, None] * N + cols[None, :], acc)
    except ImportError:
        pass
    rows = []
    for (size, name) in [(s, n) for n in ("f16", "bf16")
                         for s in (1024, 4096, 8192)]:
        flops = 2 * size ** 3
        dtype = torch.float16 if name == "f16" else torch.bfloat16
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        row = {"size": size, "dtype": name, "flops": flops,
               "torch_s": torch_time(lambda: torch.matmul(a, b), 20)}
        try:
            row["kiln_s"] = kiln_time(
                kiln_run, "matmul", (size // 64, size // 64),
                [f"{name}[{size * size}]=rand", f"{name}[{size * size}]=rand",
                 f"f32[{size * size}]=zeros", f"i32={size}", f"i32={size}",
                 f"i32={size}"],
                None if name == "f16" else bf16_source)
        except Exception as error:  # reported, and the suite goes on
            row["kiln_error"] = str(error)[-500:]
        if triton_matmul is not None:
            c = torch.empty(size, size, device="cuda", dtype=torch.float32)
            grid = (size // 64, size // 64)
            row["triton_s"] = torch_time(
                lambda: triton_matmul[grid](a, b, c, size, size, size,
                                            BM=64, BN=64, BK=32), 20)
        rows.append(row)
    return rows


def matmul_table(rows: list[dict]) -> list[str]:
    """The matmul rates as Markdown, Kiln as a fraction of cuBLAS."""
    def rate(row, key):
        return f"{row['flops'] / row[key] / 1e12:.1f}" if key in row else "-"
    lines = ["", "| matmul (fp32 acc.) | Kiln TFLOP/s | torch.matmul "
             "TFLOP/s | Triton TFLOP/s | Kiln / torch rate |",
             "|---|---:|---:|---:|---:|"]
    for row in rows:
        ratio = (f"{row['torch_s'] / row['kiln_s']:.2f}" if "kiln_s" in row
                 else "failed")
        lines.append(f"| {row['dtype']} {row['size']}³ | "
                     f"{rate(row, 'kiln_s')} | "
                     f"{rate(row, 'torch_s')} | {rate(row, 'triton_s')} | "
                     f"{ratio} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--kiln-run", default=str(
        Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")) / "bin" /
        "kiln-run"))
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("gpu_suite: PyTorch is not installed; nothing measured")
        return 2
    if not torch.cuda.is_available():
        print("gpu_suite: PyTorch sees no GPU; nothing measured")
        return 2

    device = torch.cuda.get_device_name(0)
    n = 1 << 26  # 256 MiB of f32 per array
    rows, cols = 1 << 16, 1024
    x = torch.randn(n, device="cuda") + 0.1
    y = torch.randn(n, device="cuda") + 0.1
    big = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    big_out = torch.empty_like(big)
    copy_s = torch_time(lambda: big_out.copy_(big), 20)
    copy_gbs = 2 * big.numel() / copy_s / 1e9
    m = torch.randn(rows, cols, device="cuda")
    w, b = torch.randn(2, cols, device="cuda")

    blocks = (n + 1023) // 1024
    f32n = f"f32[{n}]=rand"
    f32m = f"f32[{rows * cols}]=rand"
    # kernel: (kiln grid, kiln args, torch eager, bytes moved once)
    cases = {
        "vector_add": ((blocks,), [f32n, f32n, f32n, f"i32={n}"],
                       lambda: x + y, 12 * n),
        "cos_cos": ((blocks,), [f32n, f32n, f"i32={n}"],
                    lambda: torch.cos(torch.cos(x)), 8 * n),
        "gelu": ((blocks,), [f32n, f32n, f"i32={n}"],
                 lambda: F.gelu(x), 8 * n),
        "gelu_tanh": ((blocks,), [f32n, f32n, f"i32={n}"],
                      lambda: F.gelu(x, approximate="tanh"), 8 * n),
        "relu_axpb": ((blocks,), [f32n, f32n, "f32=1.5", "f32=-0.25",
                                  f"i32={n}"],
                      lambda: torch.relu(1.5 * x - 0.25), 8 * n),
        "softmax": ((rows,), [f32m, f32m, f"i32={cols}", f"i32={cols}"],
                    lambda: torch.softmax(m, dim=1), 8 * rows * cols),
        "layer_norm": ((rows,), [f32m, f32m, f"f32[{cols}]=rand",
                                 f"f32[{cols}]=rand", f"i32={cols}",
                                 f"i32={cols}", "f32=1e-5"],
                       lambda: F.layer_norm(m, (cols,), w, b),
                       8 * rows * cols),
    }
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "device": device, "torch": torch.__version__,
               "copy_GBps": copy_gbs, "kernels": []}
    lines = [f"# GPU suite: {device}, {results['date']}", "",
             f"Device-to-device copy (1 GiB, read + written): "
             f"{copy_gbs:.0f} GB/s.", "",
             "| kernel | Kiln (us) | Kiln GB/s | of copy | torch eager (us) |"
             " torch GB/s | torch.compile (us) | Kiln / torch time |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, (grid, args, eager, nbytes) in cases.items():
        row = {"kernel": name, "bytes": nbytes}
        try:
            row["kiln_s"] = kiln_time(options.kiln_run, name, grid, args)
        except Exception as error:  # reported, and the suite goes on
            row["kiln_error"] = str(error)[-500:]
        row["torch_s"] = torch_time(eager)
        try:
            row["compiled_s"] = torch_time(torch.compile(eager))
        except Exception as error:  # a skipped column, not a crash
            row["compiled_error"] = str(error)[-500:]
        compiled = (f"{row['compiled_s'] * 1e6:.1f}" if "compiled_s" in row
                    else "skipped")
        results["kernels"].append(row)
        if "kiln_s" in row:
            gbs = nbytes / row["kiln_s"] / 1e9
            lines.append(
                f"| {name} | {row['kiln_s'] * 1e6:.1f} | {gbs:.0f} | "
                f"{gbs / copy_gbs:.0%} | {row['torch_s'] * 1e6:.1f} | "
                f"{nbytes / row['torch_s'] / 1e9:.0f} | {compiled} | "
                f"{row['kiln_s'] / row['torch_s']:.2f} |")
        else:
            lines.append(f"| {name} | failed | | | "
                         f"{row['torch_s'] * 1e6:.1f} | | {compiled} | |")
        print(lines[-1], flush=True)
    results["matmul"] = matmul_rates(torch, options.kiln_run, options.out)
    lines += matmul_table(results["matmul"])
    print("\n".join(lines[-len(results["matmul"]) - 2:]), flush=True)
    try:
        overhead = launch_overhead(torch)
        results["launch_overhead_us"] = overhead
        lines += ["", "| launch from Python (1 element) | us per launch |",
                  "|---|---:|"]
        lines += [f"| {name} | {us:.1f} |" for name, us in overhead.items()]
    except Exception as error:  # reported, and the suite goes on
        results["launch_overhead_error"] = str(error)[-500:]
        lines += ["", f"launch overhead not measured: {error}"]
    (options.out / "gpu_suite.md").write_text("\n".join(lines) + "\n")
    (options.out / "gpu_suite.json").write_text(json.dumps(results, indent=2))
    print("\n".join(lines))
    return 0 if all("kiln_s" in r for r in results["kernels"] +
                    results["matmul"]) else 1


if __name__ == "__main__":
    sys.exit(main())
