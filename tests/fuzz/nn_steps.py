"""The neural-network step of the fuzzer: one function of ``nn.functional`` applied to a tensor of the program, with
the weights, labels and targets its shape calls for (new leaves, some requiring grad). Normalisations, activations
with settings, losses, and, by the tensor's number of dims, classification losses and linear layers (2-D), or
convolutions, pools, resampling and padding (3-D: a batch of sequences, or one unbatched image)."""

from __future__ import annotations

from .known import avoids

F = "M.nn.functional"

ANY_SHAPE = [
    F + ".layer_norm({a}, {last})", F + ".layer_norm({a}, {last}, {w}, {bias}, eps=1e-3)", F + ".rms_norm({a}, {last})",
    F + ".normalize({a}, dim={d})", F + ".leaky_relu({a}, 0.1)", F + ".hardtanh({a}, -0.5, 0.5)", F + ".softsign({a})",
    F + ".hardswish({a})", F + ".hardsigmoid({a})", F + ".relu6({a} * 4)", F + ".celu({a}, 0.5)", F + ".selu({a})",
    F + ".softshrink({a}, 0.5)", F + ".hardshrink({a}, 0.5)", F + ".tanhshrink({a})", F + ".threshold({a}, 0.1, -1.0)",
    F + ".softmin({a}, {d})", F + ".prelu({a}, {w1})", F + ".smooth_l1_loss({a}, {other}, beta=0.5)",
    F + ".huber_loss({a}, {other}, delta=0.5)", F + ".l1_loss({a}, {other}, reduction='sum')",
    F + ".mse_loss({a}, {other}, reduction='none')",
    F + ".binary_cross_entropy_with_logits({a}, ({other}.detach() > 0).double())",
    F + ".binary_cross_entropy_with_logits({a}, {other}.detach().sigmoid(), pos_weight={w1}.detach().abs())",
    F + ".binary_cross_entropy({a}.sigmoid(), {other}.detach().sigmoid())",
    F + ".kl_div({a}.log_softmax(-1), {other}.detach().softmax(-1), reduction='batchmean')",
    F + ".poisson_nll_loss({a}, {other}.detach().abs())",
    F + ".gaussian_nll_loss({a}, {other}, {other}.detach().abs() + 0.5)",
    F + ".soft_margin_loss({a}, {other}.detach().sign())", F + ".cosine_similarity({a}, {other}, dim=-1)",
    F + ".pairwise_distance({a}, {other})",
]

TWO_DIMS = [  # (N, C)
    F + ".cross_entropy({a}, M.tensor({labels}))",
    F + ".cross_entropy({a}, M.tensor({labels}), label_smoothing=0.1, reduction='sum')",
    F + ".cross_entropy({a}, {other}.detach().softmax(1))", F + ".nll_loss({a}.log_softmax(1), M.tensor({labels}))",
    F + ".multi_margin_loss({a}, M.tensor({labels}))", F + ".linear({a}, {w2})", F + ".linear({a}, {w2}, {bias2})",
    F + ".batch_norm({a}, None, None, training=True)", F + ".embedding(M.tensor({labels}) % {n}, {a})",
    F + ".glu({a}.repeat(1, 2), -1)", F + ".pdist({a})", F + ".pdist({a}, p=1.5)", F + ".bilinear({a}, {a} * 0.5, {wb})",
    F + ".triplet_margin_loss({a}, {other}, {a}.flip(0) + 0.25)",
]

THREE_DIMS = [  # (N, C, L) batches of sequences, or (C, H, W) unbatched images
    F + ".conv1d({a}, {w3})", F + ".conv1d({a}, {w3}, {bias3}, padding=1)", F + ".conv1d({a}, {w3}, stride=2)",
    F + ".conv2d({a}, {w4})", F + ".conv2d({a}, {w4}, padding=1, stride=2)", F + ".max_pool1d({a}, {k})",
    F + ".avg_pool1d({a}, {k}, ceil_mode=True)", F + ".adaptive_avg_pool1d({a}, 2)", F + ".max_pool2d({a}, {k})",
    F + ".avg_pool2d({a}, {k}, padding={half})", F + ".group_norm({a}, 1)", F + ".instance_norm({a})",
    F + ".batch_norm({a}, None, None, training=True)", F + ".interpolate({a}, scale_factor=2, mode='linear')",
    F + ".pad({a}, (1, 1), mode='replicate')", F + ".pad({a}, (1, 2), value=0.5)",
    # (one (C, H, W) image for grid_sample, its grid made finite: PyTorch 2.13's CPU backward of a NaN grid point
    # crashes with the border and reflection paddings, so only zeros is generated), and 3-D pools of {a}[None]
    F + ".grid_sample({a}[None], {grid}, align_corners=False)",
    F + ".grid_sample({a}[None], {grid}, mode='nearest', align_corners=True)",
    F + ".max_pool3d({a}[None], (1, {k}, {k}))", F + ".avg_pool3d({a}[None], (1, {k}, 1), ceil_mode=True)",
    F + ".adaptive_avg_pool3d({a}[None], (1, 2, 1))", F + ".adaptive_max_pool3d({a}[None], (1, 1, 2))",
]


def nn_layer(gen) -> None:
    """One ``nn.functional`` call about a non-empty tensor of the program (see the module docstring)."""
    names = gen.float_vars(lambda var, t: t.dim() >= 1 and t.numel() > 0)
    if not names:
        return
    a = gen.choice(names)
    t = gen.tensor(a)
    shape = tuple(t.shape)
    forms = ANY_SHAPE + (TWO_DIMS if len(shape) == 2 else THREE_DIMS if len(shape) == 3 else [])
    template = gen.choice(forms)
    fields = {"a": a, "d": gen.dim(t), "last": list(shape[-1:]), "n": shape[0], "k": min(2, shape[-1]),
              "half": min(2, shape[-1]) // 2, "labels": gen.rng.integers(0, shape[-1], shape[0]).tolist()}
    weights = {  # the leaves a template names, each made only when it does
        "w": lambda: gen.leaf(shape[-1:], requires_grad=gen.chance(0.6)),
        "bias": lambda: gen.leaf(shape[-1:], requires_grad=gen.chance(0.6)),
        "w1": lambda: gen.leaf((1,), requires_grad=gen.chance(0.6)),
        "other": lambda: gen.leaf(shape, requires_grad=gen.chance(0.4)),
        "w2": lambda: gen.leaf((2, shape[-1]), requires_grad=gen.chance(0.7)),
        "bias2": lambda: gen.leaf((2,), requires_grad=gen.chance(0.6)),
        "w3": lambda: gen.leaf((2, shape[1], min(2, shape[-1])), requires_grad=gen.chance(0.7)),
        "bias3": lambda: gen.leaf((2,), requires_grad=gen.chance(0.6)),
        "w4": lambda: gen.leaf((2, shape[0], min(2, shape[1]), min(2, shape[2])), requires_grad=gen.chance(0.7)),
        "wb": lambda: gen.leaf((2, shape[-1], shape[-1]), requires_grad=gen.chance(0.7)),
        "grid": lambda: gen.leaf((1, 2, 2, 2), requires_grad=gen.chance(0.6)) + ".nan_to_num(0.0, 1.0, -1.0) * 0.6",
    }
    for name, make in weights.items():
        if "{" + name + "}" in template:
            fields[name] = make()
    expr = template.format(**fields)
    if not avoids(gen, "nn_layer", name=a, text=expr):
        gen.bind(expr)
