"""Evaluation helpers written with the bare decorators."""
import autograd_lab as al

model = al.nn.Linear(3, 1)


@al.no_grad
def evaluate(x):
    return model(x)


@al.inference_mode
def predict(x):
    return model(x)


@al.no_grad()
def batches(n):
    for i in range(n):
        yield model(al.ones(1, 3) * i), al.is_grad_enabled()


x = al.ones(2, 3)
out, fast = evaluate(x), predict(x)
steps = list(batches(2))
result = {
    "evaluate requires grad": out.requires_grad,
    "predict is inference": fast.is_inference(),
    "generator ran without grad": [enabled for _, enabled in steps],
    "grad on afterwards": al.is_grad_enabled(),
    "training still records": model(x).requires_grad,
}
print(result)
