"""Serve predictions under inference_mode, look at what comes out, and the mistakes PyTorch refuses."""
import autograd_lab as al

model = al.nn.Linear(4, 3)
head = al.nn.Linear(3, 1)
with al.inference_mode():
    scores = model(al.ones(2, 4))
    top = scores[:, 0]  # a view of an inference tensor
    weight_row = model.weight[0]  # a view of a parameter, taken inside
errors = []
for attempt in (lambda: scores.add_(1), lambda: top.mul_(2), lambda: weight_row.mul_(2), lambda: head(scores).sum()):
    try:
        attempt()
    except RuntimeError as exc:
        errors.append(str(exc).split(".")[0])
result = {
    "scores": (scores.is_inference(), scores.requires_grad),
    "top": (top.is_inference(), top._is_view()),
    "weight row": (weight_row.is_inference(), weight_row._is_view(), weight_row.requires_grad, weight_row.is_leaf),
    "errors": errors,
    "a clone is normal": scores.clone().is_inference(),
}
print(result)
