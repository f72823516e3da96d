# One-off A/B (issue #3): compiled scoring pass, row layout vs column layout (model/columns.py), paper-quadruped model, 72 candidates.
import time, torch
from simdist.config import model_preset
from simdist.bench import BENCH_SPECS
from simdist.model.world_model import WorldModel, PlanningContext
from simdist.model import columns as C
torch.set_num_threads(2); torch.manual_seed(0)
m=WorldModel(model_preset("paper-quadruped"),BENCH_SPECS["quadruped"]).eval()
H,T=m.cfg.history,m.cfg.horizon
ctx=m.planning_context({"proprio":torch.randn(1,35),"height":torch.randn(1,21,15)},torch.randn(1,H,35),torch.randn(1,H,12),torch.randn(1,3))
a=torch.randn(72,T,12)
def dec_rows(z,kv,cmd,a):
    return m.latents_n(kv,a)
def dec_cols(z,kv,cmd,a):
    x=C._linear(m.action_embedding,a.permute(2,1,0))+m.action_position.t()[:,:,None]
    for layer,k in zip(m.dynamics["decoder"].layers,kv): x=C._decoder_layer(layer,x,k)
    return C._linear(m.dynamics["out"],x)
def full_rows(z,kv,cmd,a): return WorldModel.plan_returns_n(m,PlanningContext(z,kv,[],cmd),a,0.99)
def full_cols(z,kv,cmd,a): return C.plan_returns_columns(m,PlanningContext(z,kv,[],cmd),a,0.99)
fs={n:torch.compile(f,dynamic=False) for n,f in [("dec_rows",dec_rows),("dec_cols",dec_cols),("full_rows",full_rows),("full_cols",full_cols)]}
args=(ctx.z,ctx.dynamics_kv,ctx.command_n,a)
with torch.no_grad():
  for n,f in fs.items():
    for _ in range(5): f(*args)
  for r in range(3):
    for n,f in fs.items():
      t=time.perf_counter()
      for _ in range(100): f(*args)
      print(r,n,f"{(time.perf_counter()-t)/100*1e3:.2f} ms")
