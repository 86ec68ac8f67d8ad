"""More cases of ``test_formulas.py``: scans and shifts, resampling and padding, linear algebra, and the later
joining, view and scatter ops (the kinds are explained in ``formula_cases.py``)."""

from __future__ import annotations

import numpy as np
from formula_cases import _PICTURE, MATRIX, SHAPED, UNARY, F, _picture, _second, _written

import autograd_lab as al

CASES = {}


def _rows(a):
    """An index shaped like ``a`` that sends row i of dim 0 to row n-1-i (a permutation: no repeated writes)."""
    n = a.shape[0]
    return al.tensor(np.broadcast_to((n - 1 - np.arange(n)).reshape((-1,) + (1,) * (a.ndim - 1)), a.shape).copy())


CASES.update({  # scans, shifts and indexing
    "CumsumBackward0": (UNARY, "any", [lambda a: a.cumsum(-1), lambda a: a.cumsum(0, dtype=al.float64)]),
    "CumprodBackward0": (UNARY, "any", [lambda a: a.cumprod(-1), lambda a: (a * (a > 0)).cumprod(0)]),
    "CummaxBackward0": (UNARY, "any", [lambda a: a.cummax(-1).values]),
    "CumminBackward0": (UNARY, "any", [lambda a: a.cummin(0).values]),
    "LogcumsumexpBackward0": (UNARY, "any", [lambda a: a.logcumsumexp(-1), lambda a: (a * 30).logcumsumexp(0)]),
    "RollBackward0": (SHAPED, "any", [lambda a: a.roll(1), lambda a: a.roll(-2, -1)]),
    "Rot90Backward0": (MATRIX, "any", [lambda a, w: a.rot90(), lambda a, w: a.rot90(-1, (1, 0))]),
    "TrilBackward0": (MATRIX, "any", [lambda a, w: a.tril(), lambda a, w: a.tril(-1)]),
    "TriuBackward0": (MATRIX, "any", [lambda a, w: a.triu(1)]),
    "TraceBackward0": (MATRIX, "any", [lambda a, w: a.trace()]),
    "DiagEmbedBackward0": (SHAPED, "any", [lambda a: a.diag_embed(), lambda a: a.diag_embed(-1, 0, -1)]),
    "ScatterBackward0": (SHAPED, "any", [lambda a: a.scatter(0, _rows(a), a * 2),
                                         lambda a: a.scatter(0, _rows(a)[:1], a[:1] * 3)]),
    "ScatterBackward1": (SHAPED, "any", [lambda a: a.scatter(0, _rows(a)[:1], 2.0)]),
    "IndexFillBackward0": (SHAPED, "any", [lambda a: a.index_fill(0, al.tensor([0]), 1.5),
                                           lambda a: a.index_fill(-1, al.tensor([1, 1]), 0.0)]),
    "IndexFillBackward1": (SHAPED, "any", [lambda a: a.index_fill(0, al.tensor([0, 0]), a.sum())]),
    "IndexAddBackward0": (SHAPED, "any", [lambda a: a.index_add(0, al.tensor([0, 0]), a[:2] * 2),
                                          lambda a: a.index_add(0, al.tensor([1, 0]), a[:2], alpha=0.5)]),
    "IndexCopyBackward0": (SHAPED, "any", [lambda a: a.index_copy(0, al.tensor([1, 0]), a[:2].flip(0) * 2)]),
    "MaskedScatterBackward0": (UNARY, "any", [lambda a: a.masked_scatter(a > 0, a * 2)]),
    "TakeBackward0": (UNARY, "any", [lambda a: a.take(al.tensor([0, -1, 0]))]),
})
for _mode, _dims, _name in (("nearest", 1, "Nearest1D"), ("nearest", 2, "Nearest2D"), ("nearest", 3, "Nearest3D"),
                            ("nearest-exact", 1, "NearestExact1D"), ("nearest-exact", 2, "NearestExact2D"),
                            ("nearest-exact", 3, "NearestExact3D"), ("linear", 1, "Linear1D"),
                            ("bilinear", 2, "Bilinear2D"), ("trilinear", 3, "Trilinear3D"), ("bicubic", 2, "Bicubic2D")):
    def _image(a, dims=_dims):
        return _picture(a).reshape({1: (2, 3, 42), 2: (2, 3, 7, 6), 3: (2, 3, 7, 3, 2)}[dims])

    def _resampled(image, mode=_mode, dims=_dims):
        return F.interpolate(image, scale_factor=1.6, mode=mode,
                             align_corners=None if mode.startswith("nearest") else dims == 2)
    CASES[f"Upsample{_name}Backward0"] = (UNARY, "any", [lambda a, resample=_resampled, image=_image: resample(image(a))])
    CASES[f"Upsample{_name}BackwardBackward0"] = (UNARY, "any", [  # (its gradient: the resampling's adjoint)
        lambda a, resample=_resampled, image=_image: _second(resample, image(a).detach().requires_grad_())])
for _mode in ("bilinear", "bicubic"):  # (antialiased: shrinking, where the kernel widens)
    CASES[f"Upsample{_mode.capitalize()}2DAaBackward0"] = (UNARY, "any", [
        lambda a, mode=_mode: F.interpolate(_picture(a), scale_factor=(0.5, 0.7), mode=mode, antialias=True),
        lambda a, mode=_mode: F.interpolate(_picture(a), size=(3, 9), mode=mode, antialias=True, align_corners=True)])
    CASES[f"Upsample{_mode.capitalize()}2DAaBackwardBackward0"] = (UNARY, "any", [lambda a, mode=_mode: _second(
        lambda x: F.interpolate(x, scale_factor=0.6, mode=mode, antialias=True), _picture(a).detach().requires_grad_())])
for _mode, _name in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad")):
    for _dims in (1, 2, 3):
        _shape = (1, 2) + (3,) * _dims

        def _image(a, shape=_shape):
            return a.sum() * al.tensor(_PICTURE.reshape(-1)[:np.prod(shape)].reshape(shape), dtype=a.dtype)

        def _pad(x, mode=_mode, dims=_dims):
            return F.pad(x, (1, 1) * dims, mode=mode)
        CASES[f"{_name}{_dims}DBackward0"] = (UNARY, "any", [lambda a, pad=_pad, image=_image: pad(image(a))])
        CASES[f"{_name}{_dims}DBackwardBackward0"] = (UNARY, "any", [
            lambda a, pad=_pad, image=_image: _second(pad, image(a).detach().requires_grad_())])


# linear algebra: square matrices made from the (n, k) input, well conditioned, with distinct eigenvalues
def _spd(a):
    """A symmetric positive-definite (n, n) matrix that depends on every element of ``a``."""
    return a @ a.t() + al.tensor(np.diag(np.arange(2.0, 2.0 + 2 * a.shape[0], 2)), dtype=a.dtype)


def _square(a):
    """A well-conditioned (n, n) matrix, not symmetric, that depends on every element of ``a``."""
    return _spd(a) + a[:, :1] * 0.3


def _vectors(a, w):
    """Two 3-vectors from the elements of ``a`` and ``w``."""
    return al.cat([a.reshape(-1), w.reshape(-1)])[:6].reshape(2, 3)


CASES.update({
    "LinalgDetBackward0": (MATRIX, "any", [lambda a, w: al.linalg.det(_square(a))]),
    "LinalgSlogdetBackward0": (MATRIX, "any", [lambda a, w: al.linalg.slogdet(-_square(a))]),
    "LinalgInvExBackward0": (MATRIX, "any", [lambda a, w: al.linalg.inv(_square(a))]),
    "LinalgSolveExBackward0": (MATRIX, "any", [lambda a, w: al.linalg.solve(_square(a), a),
                                               lambda a, w: al.linalg.solve(_square(a), a[:, 0])]),
    "LinalgCholeskyExBackward0": (MATRIX, "any", [lambda a, w: al.linalg.cholesky(_spd(a)),
                                                  lambda a, w: al.linalg.cholesky(_spd(a), upper=True)]),
    "LinalgQrBackward0": (MATRIX, "any", [lambda a, w: al.linalg.qr(a), lambda a, w: al.linalg.qr(a.t())]),
    "LinalgEighBackward0": (MATRIX, "any", [lambda a, w: al.linalg.eigh(_spd(a)),
                                            lambda a, w: al.linalg.eigvalsh(_spd(a))]),
    "LinalgSvdBackward0": (MATRIX, "any", [lambda a, w: al.linalg.svd(_square(a), full_matrices=False),
                                           lambda a, w: al.linalg.svdvals(a)]),
    "LinalgCrossBackward0": (MATRIX, "any", [lambda a, w: al.linalg.cross(_vectors(a, w)[:1], _vectors(a, w)[1:])]),
    "LinalgSolveTriangularBackward0": (MATRIX, "any", [
        lambda a, w: al.linalg.solve_triangular(_square(a), a, upper=True),
        lambda a, w: al.linalg.solve_triangular(_square(a), a.t(), upper=False, left=False, unitriangular=True)]),
    "LinalgLuFactorExBackward0": (MATRIX, "any", [lambda a, w: al.linalg.lu_factor_ex(_square(a)),
                                                  lambda a, w: al.linalg.lu_factor(a)[0]]),
    "LinalgLuBackward0": (MATRIX, "any", [lambda a, w: al.linalg.lu(a)[1], lambda a, w: al.linalg.lu(a.t())[2]]),
    "LuUnpackBackward0": (MATRIX, "any", [lambda a, w: al.lu_unpack(*al.linalg.lu_factor(a))[1],
                                          lambda a, w: al.lu_unpack(*al.linalg.lu_factor(a.t()))[2]]),
    "LinalgMatrixExpBackward0": (MATRIX, "any", [lambda a, w: al.linalg.matrix_exp(_square(a) * 0.3)]),
    "CholeskySolveBackward0": (MATRIX, "any", [
        lambda a, w: al.cholesky_solve(a, al.linalg.cholesky(_spd(a))),
        lambda a, w: al.cholesky_solve(a, al.linalg.cholesky(_spd(a), upper=True), upper=True)]),
    "CholeskyInverseBackward0": (MATRIX, "any", [
        lambda a, w: al.cholesky_inverse(al.linalg.cholesky(_spd(a))),
        lambda a, w: al.cholesky_inverse(al.linalg.cholesky(_spd(a), upper=True), upper=True)]),
    "LinalgLuSolveBackward0": (MATRIX, "any", [
        lambda a, w: al.linalg.lu_solve(*al.linalg.lu_factor(_square(a)), a),
        lambda a, w: al.linalg.lu_solve(*al.linalg.lu_factor(_square(a)), a.t(), left=False, adjoint=True)]),
})

CASES.update({  # more joining, views and scatters (ops/join_more.py, ops/views_more.py, ops/scatter_more.py)
    "BlockDiagBackward0": (MATRIX, "any", [lambda a, w: al.block_diag(a, w[0], w.sum()), lambda a, w: al.block_diag(a)]),
    "UnfoldBackward0": (SHAPED, "any", [lambda a: a.unfold(0, 2, 1), lambda a: a.unfold(-1, 1, 2)]),
    "UnfoldBackwardBackward0": (SHAPED, "any", [lambda a: _second(lambda t: t.unfold(0, 2, 1), a)]),
    "NarrowCopyBackward0": (SHAPED, "any", [lambda a: a.narrow_copy(0, 1, 1), lambda a: a.narrow_copy(-1, 0, 2)]),
    "DiagonalBackward0_copy": (MATRIX, "any", [lambda a, w: a.diag(), lambda a, w: a.diag(-1)]),
    "UnsqueezeBackward1": (UNARY, "any", [_written("unsqueeze_", 0), _written("unsqueeze_", -1)]),
    "SqueezeBackward3": (UNARY, "any", [lambda a: _written("squeeze_")(a.unsqueeze(0))]),
    "SqueezeBackward5": (UNARY, "any", [lambda a: _written("squeeze_", (0, -1))(a.unsqueeze(0).unsqueeze(-1))]),
    "MaskedSelectBackward0": (UNARY, "any", [lambda a: a.masked_select(a > 0),
                                             lambda a: al.masked_select(a, a.reshape(-1)[:1] < 0)]),
    "ScatterReduceBackward0": (SHAPED, "any", [
        lambda a: a.scatter_reduce(0, _rows(a), a * 2, "prod"), lambda a: a.scatter_reduce(0, _rows(a), a.flip(0), "mean"),
        lambda a: a.scatter_reduce(0, _rows(a)[:1], a[:1] * 0.5, "amax", include_self=False),
        lambda a: a.scatter_reduce(0, _rows(a), a * 3, "amin"),
        lambda a: a.scatter_reduce(0, _rows(a), a, "sum", include_self=False)]),
    "IndexReduceBackward0": (SHAPED, "any", [
        lambda a: a.index_reduce(0, al.tensor([1, 0] + [1] * (a.shape[0] - 2)), a * 2, "prod"),
        lambda a: a.index_reduce(0, al.tensor([0] * a.shape[0]), a.flip(0), "mean", include_self=False),
        lambda a: a.index_reduce(-1, al.tensor([0] * a.shape[-1]), a * 0.5, "amax"),
        lambda a: a.index_reduce(0, al.tensor([1] * a.shape[0]), a * 3, "amin", include_self=False)]),
    "SelectScatterBackward0": (SHAPED, "any", [lambda a: a.select_scatter(a[0] * 2, 0, -1)]),
    "SliceScatterBackward0": (SHAPED, "any", [lambda a: a.slice_scatter(a[:1] * 2, 0, 1, 2), lambda a: a.slice_scatter(a * 3)]),
    "DiagonalScatterBackward0": (MATRIX, "any", [lambda a, w: a.diagonal_scatter(a.diagonal(1) * 2, 1)]),
})


def _labels(a):
    """A class index per row of ``a`` (every class in turn)."""
    return al.tensor(np.arange(a.shape[0]) % a.shape[1])


def _label_lists(a):
    """Per row of ``a``: its class in turn, then -1 (the end of the list), as multilabel_margin_loss reads them."""
    lists = -np.ones(a.shape, dtype=np.int64)
    lists[:, 0] = np.arange(a.shape[0]) % a.shape[1]
    return al.tensor(lists)


CASES.update({  # the multi-class margin losses (ops/nn_loss_margins.py)
    "MultiMarginLossBackward0": (MATRIX, "any", [
        lambda a, w: F.multi_margin_loss(a, _labels(a)),
        lambda a, w: F.multi_margin_loss(a, _labels(a), p=2, margin=2.0, reduction="none"),
        lambda a, w: F.multi_margin_loss(a, _labels(a), weight=al.linspace(0.5, 1.5, a.shape[1], dtype=a.dtype))]),
    "MultilabelMarginLossBackward0": (MATRIX, "any", [lambda a, w: F.multilabel_margin_loss(a * 0.2, _label_lists(a))]),
})

CASES.update({  # rrelu (ops/nn_activation.py): in eval, its noise is fixed
    "RreluWithNoiseBackward0": (UNARY, "any", [lambda a: F.rrelu(a, 0.1, 0.4)]),
    "RreluWithNoiseBackward1": (UNARY, "any", [lambda a: F.rrelu(a * 1, 0.2, 0.3, inplace=True)]),
})

_GRID_POINTS = np.random.default_rng(7).uniform(-1.2, 1.2, (2, 4, 5, 3))  # points in and a little outside [-1, 1]


def _grid(a, dims=2):
    """Points (2, 4, 5, dims) or (2, 4, 5, 1, 3) that move smoothly with ``a``."""
    points = al.tensor(_GRID_POINTS[..., :dims], dtype=a.dtype) * (1 + 0.05 * a.mean())
    return points if dims == 2 else points.reshape(2, 4, 5, 1, 3)


def _sample_gradients(a, sampled, image):
    """(grad_input, grad_grid) of ``sampled(image, grid)``, both requiring grad: their node is the sampler's
    ``...BackwardBackward0``."""
    x = image(a).detach().requires_grad_()
    grid = _grid(a, x.ndim - 2).detach().requires_grad_()
    out = sampled(x, grid)
    return al.autograd.grad(out, (x, grid), al.ones_like(out).requires_grad_(), create_graph=True)


_THETA = np.random.default_rng(8).standard_normal((2, 3, 4))

CASES.update({  # sampling at points (ops/nn_grid_sample.py, nn_affine_grid.py)
    "GridSampler2DBackward0": (UNARY, "any", [
        lambda a: F.grid_sample(_picture(a), _grid(a), align_corners=False),
        lambda a: F.grid_sample(_picture(a), _grid(a), mode="nearest", padding_mode="border", align_corners=True),
        lambda a: F.grid_sample(_picture(a), _grid(a), padding_mode="reflection", align_corners=False),
        lambda a: F.grid_sample(_picture(a), _grid(a), padding_mode="reflection", align_corners=True),
        lambda a: F.grid_sample(_picture(a), _grid(a), mode="bicubic", padding_mode="border", align_corners=False)]),
    "GridSampler3DBackward0": (UNARY, "any", [
        lambda a: F.grid_sample(_volume(a), _grid(a, 3), padding_mode="border", align_corners=False),
        lambda a: F.grid_sample(_volume(a), _grid(a, 3), mode="nearest", align_corners=False),
        lambda a: F.grid_sample(_volume(a), _grid(a, 3), padding_mode="reflection", align_corners=True)]),
    "GridSampler2DBackwardBackward0": (UNARY, "any", [
        lambda a: _sample_gradients(a, lambda x, g: F.grid_sample(x, g, align_corners=False), _picture),
        lambda a: _sample_gradients(a, lambda x, g: F.grid_sample(x, g, padding_mode="reflection",
                                                                  align_corners=True), _picture),
        lambda a: _sample_gradients(a, lambda x, g: F.grid_sample(x, g, mode="nearest", align_corners=True), _picture),
        lambda a: _sample_gradients(a, lambda x, g: F.grid_sample(x, g, mode="bicubic", align_corners=True), _picture)]),
    "GridSampler3DBackwardBackward0": (UNARY, "any", [
        lambda a: _sample_gradients(a, lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=False),
                                    _volume)]),
    "AffineGridGeneratorBackward0": (UNARY, "any", [
        lambda a: F.affine_grid(al.tensor(_THETA[:, :2, :3], dtype=a.dtype) * a.mean(), (2, 1, 3, 4), align_corners=False),
        lambda a: F.affine_grid(al.tensor(_THETA, dtype=a.dtype) * a.mean(), (2, 3, 2, 3, 4), align_corners=True)]),
})


def _trilinear(a, expand1=(1, 3), expand2=(0,), expand3=(1, 2), sumdim=(2, 3)):
    """``_trilinear`` as ``bilinear`` calls it, of rows of ``a`` and a weight made of ``a``; the defaults are
    bilinear's dims."""
    from autograd_lab.ops.nn_bilinear import TrilinearBackward0
    rows = a.reshape(1, -1)
    weight = al.stack([rows.T * rows, rows.T - rows * 0.5])
    return TrilinearBackward0.apply(rows, weight, rows.flip(1) * 2, expand1=expand1, expand2=expand2,
                                    expand3=expand3, sumdim=sumdim)


CASES.update({  # products of three tensors, distances within a batch (ops/nn_bilinear.py)
    "TrilinearBackward0": (UNARY, "any", [_trilinear, lambda a: _trilinear(a, sumdim=(3,)),
                                          lambda a: _trilinear(a, sumdim=(0, 2, 3))]),
    "PdistBackward0": (MATRIX, "any", [lambda a, w: F.pdist(a), lambda a, w: F.pdist(a, 1.5),
                                       lambda a, w: F.pdist(w, 3), lambda a, w: F.pdist(w, 1),
                                       lambda a, w: F.pdist(a, float("inf")), lambda a, w: F.pdist(w, 0.5)]),
})


CASES.update({  # the activations' derivatives as ops (ops/activation_backward.py), as functions of a gradient
    "ThresholdBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: x.relu(), a),
                                                  lambda a: _second(lambda x: F.threshold(x, 0.3, 2.0), a)]),
    "LeakyReluBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.leaky_relu(x, 0.2), a)]),
    "HardtanhBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.hardtanh(x, -0.5, 0.5), a)]),
    "HardshrinkBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.hardshrink(x, 0.5), a)]),
    "SoftshrinkBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.softshrink(x, 0.5), a)]),
    "BinaryCrossEntropyBackwardBackward0": (UNARY, "any", [
        lambda a: _second(lambda x: F.binary_cross_entropy(x, (a.detach() * 0.7).sigmoid()), a.sigmoid()),
        lambda a: _second(lambda x: F.binary_cross_entropy(x, a.detach().cos().sigmoid(), weight=al.tensor(2.0,
                          dtype=a.dtype), reduction="sum"), a.sigmoid())]),
})


def _volume(a):
    """A (2, 3, 7, 3, 2) volume that depends on every element of ``a`` (``_picture`` with its width split)."""
    return _picture(a).reshape(2, 3, 7, 3, 2)


def _leaf_volume(a):
    """``_volume(a)`` as a leaf that requires grad (its gradient is then exactly a pooling op's)."""
    return _volume(a).detach().requires_grad_()


CASES.update({  # pooling over volumes (ops/nn_pool3d.py)
    "MaxPool3DWithIndicesBackward0": (UNARY, "any", [lambda a: F.max_pool3d(_volume(a), 2),
                                                     lambda a: F.max_pool3d(_volume(a)[0], (3, 2, 2), 2, 1, (1, 2, 1),
                                                                            True)]),
    "MaxPool3DWithIndicesBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.max_pool3d(x, 2),
                                                                                _leaf_volume(a))]),
    "AvgPool3DBackward0": (UNARY, "any", [lambda a: F.avg_pool3d(_volume(a), (3, 2, 2), (2, 1, 1), 1, True, False),
                                          lambda a: F.avg_pool3d(_volume(a)[1], 2, divisor_override=3)]),
    "AvgPool3DBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.avg_pool3d(x, 2), _leaf_volume(a))]),
    "AdaptiveAvgPool3DBackward0": (UNARY, "any", [lambda a: F.adaptive_avg_pool3d(_volume(a), (3, 2, 4))]),
    "AdaptiveAvgPool3DBackwardBackward0": (UNARY, "any", [lambda a: _second(
        lambda x: F.adaptive_avg_pool3d(x, (3, 2, 4)), _leaf_volume(a))]),
    "AdaptiveMaxPool3DBackward0": (UNARY, "any", [lambda a: F.adaptive_max_pool3d(_volume(a), (3, 2, 1)),
                                                  lambda a: F.adaptive_max_pool3d(_volume(a)[0], (5, None, 3))]),
    "AdaptiveMaxPool3DBackwardBackward0": (UNARY, "any", [lambda a: _second(
        lambda x: F.adaptive_max_pool3d(x, (3, 2, 1)), _leaf_volume(a))]),
    "MaxUnpool3DBackward0": (UNARY, "any", [lambda a: F.max_unpool3d(
        *F.max_pool3d(_volume(a), 2, return_indices=True), 2, output_size=(7, 3, 2))]),
})

CASES.update({  # the tensor API's later additions (ops/put_renorm.py, ops/conjugation.py, ops/split.py)
    "PutBackward0": (SHAPED, "any", [lambda a: a.put(al.tensor([0, -1]), a.reshape(-1)[:2] * 2),
                                     lambda a: a.put(al.tensor([1, 1]), a.reshape(-1)[:2] * 3, accumulate=True)]),
    "RenormBackward0": (MATRIX, "any", [lambda a, w: a.renorm(2, 0, 1.0), lambda a, w: a.renorm(3, 1, 0.5),
                                        lambda a, w: a.renorm(1, -1, 100.0)]),
    "ConjPhysicalBackward1": (UNARY, "any", [_written("conj_physical_")]),
    "AngleBackward0": (UNARY, "any", [lambda a: a.angle()]),
    "ClampMaxBackward0": (UNARY, "any", [lambda a: a.clamp_max(0.3), _written("clamp_max_", -0.2)]),
    "UnsafeSplitBackward0": (SHAPED, "any", [lambda a: a.unsafe_split(1, 0), lambda a: a.unsafe_chunk(2, -1)]),
    "UnsafeSplitWithSizesBackward0": (SHAPED, "any", [lambda a: a.unsafe_split_with_sizes([1, a.shape[0] - 1], 0)]),
})
