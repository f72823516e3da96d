"""A/B: one Eq. 2 training step (forward, backward, Adam) eager vs with `torch.compile` on the model's forward.

    OMP_NUM_THREADS=1 python benchmarks/train_compile_ab.py quadruped-cpu eager|compiled

Prints the median step time over 15 steps after two warm-up steps (which include the compile).
"""
import sys, time, statistics, torch
from simdist.bench import _random_batch, _spec_for
from simdist.config import model_preset, train_preset, LossConfig
from simdist.model.world_model import WorldModel
from simdist.model.loss import world_model_loss
name, mode = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
model = WorldModel(model_preset(name), _spec_for(name)).train()
bs = train_preset(name).batch_size
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
b = _random_batch(model, bs)
if mode == "compiled":
    model.forward = torch.compile(model.forward, dynamic=False)
def step():
    loss, _ = world_model_loss(model, b, LossConfig())
    opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
t0 = time.perf_counter(); step(); step(); c = time.perf_counter() - t0
ts = []
for _ in range(15):
    t = time.perf_counter(); step(); ts.append(time.perf_counter() - t)
m = statistics.median(ts)
print(name, mode, torch.get_num_threads(), f"first2 {c:.1f}s median {m*1e3:.1f} ms  {bs/m:.0f} seq/s", flush=True)
