"""The lines PyTorch scripts open with: pick a device, set the backend flags, seed."""
import autograd_lab as al
import autograd_lab.backends.cudnn as cudnn

device = "cuda" if al.cuda.is_available() else "mps" if al.backends.mps.is_available() else "cpu"
cudnn.benchmark = True
cudnn.deterministic = True
al.backends.cuda.matmul.allow_tf32 = False
al.set_float32_matmul_precision("high")
al.manual_seed(0)

model = al.nn.Linear(4, 2).to(device)
x = al.ones(3, 4, device=device)
result = {
    "device": str(model(x).device),
    "mps built": al.backends.mps.is_built(),
    "cudnn available": cudnn.is_available(),
    "benchmark": cudnn.benchmark,
    "tf32 after 'high'": al.backends.cuda.matmul.allow_tf32,
    "precision": al.get_float32_matmul_precision(),
}
print(result)
