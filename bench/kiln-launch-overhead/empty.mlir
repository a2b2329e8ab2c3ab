// An empty kernel with one pointer argument: what a launch costs when the
// kernel does nothing (kiln-launch-overhead; bench/gpu_suite.py launches
// the same kernel from Python).
func.func @empty(%x: !tile.ptr<f32>) {
  return
}
