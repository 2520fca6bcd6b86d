"""Data-parallel training across the Job's nodes over RDMA (NCCL), checkpointing to the tenant's shared FSS volume.

Started by torchrun on every pod (one per node, one process per GPU). The model and data are deliberately small and
synthetic so the example runs anywhere; replace ``batches`` and ``Model`` with yours. Checkpoints go to
``$CHECKPOINT_DIR`` (on the shared claim, so every rank sees the same files) and a restarted Job resumes from the
latest one. With ``$WEIGHTS_DIR`` set (``training-job:weightsPrefix``), the init containers have copied the model's
weights there, on the node's local NVMe: load them into your model where this script builds its synthetic one (it
only reports what it finds). Runs as the tenant's ServiceAccount: OCI SDK clients in this pod can use OKE Workload Identity
(``oci.auth.signers.get_oke_workload_identity_resource_principal_signer()``) for what the tenant was granted.
"""

import os
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

STEPS = int(os.environ.get("TRAIN_STEPS", "2000"))
EVERY = int(os.environ.get("CHECKPOINT_EVERY", "200"))
CHECKPOINTS = Path(os.environ["CHECKPOINT_DIR"])
WEIGHTS = Path(os.environ["WEIGHTS_DIR"]) if os.environ.get("WEIGHTS_DIR") else None


class Model(nn.Module):
    def __init__(self, width: int = 4096, depth: int = 8):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Sequential(nn.Linear(width, width), nn.GELU()) for _ in range(depth)])
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(self.layers(x))


def batches(rank: int, width: int = 4096, size: int = 64):
    gen = torch.Generator(device="cuda").manual_seed(rank)
    while True:
        x = torch.randn(size, width, device="cuda", generator=gen)
        yield x, x.pow(2).mean(dim=1, keepdim=True)


def main() -> None:
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = nn.parallel.DistributedDataParallel(Model().cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    start = 0
    if WEIGHTS is not None and rank == 0:
        staged = [f for f in WEIGHTS.rglob("*") if f.is_file() and ".okerdma-stage" not in f.parts]
        print(f"weights on local NVMe: {len(staged)} files, {sum(f.stat().st_size for f in staged) / 2**30:.1f} GiB "
              f"in {WEIGHTS}", flush=True)
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    saved = sorted(CHECKPOINTS.glob("step-*.pt"))
    if saved:
        state = torch.load(saved[-1], map_location="cuda")
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"]
        if rank == 0:
            print(f"resumed from {saved[-1]}", flush=True)
    data = batches(rank)
    began = time.perf_counter()
    for step in range(start + 1, STEPS + 1):
        x, y = next(data)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()  # DDP all-reduces the gradients over NCCL (RDMA between nodes)
        optimizer.step()
        if step % EVERY == 0 or step == STEPS:
            if rank == 0:
                torch.save({"step": step, "model": model.module.state_dict(), "optimizer": optimizer.state_dict()},
                           CHECKPOINTS / f"step-{step:08d}.pt")
                rate = (step - start) / (time.perf_counter() - began)
                print(f"step {step} loss {loss.item():.5f} ({rate:.1f} steps/s on {world} GPUs)", flush=True)
            dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
