"""``autograd_lab.autograd``: ``backward``, ``grad``, grad modes, graph introspection, anomaly mode.

Both ``backward`` and ``grad`` drain the one engine generator (:mod:`.engine`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

from .. import backend as _backend
from . import engine, forward_ad, function, functional, graph, profiler, variable
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import BackwardStep, backward_steps, run_to_end
from .function import Function, FunctionCtx
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

_np = _backend.np

__all__ = ["backward", "grad", "graph", "functional", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "BackwardStep", "backward_steps", "prepare_backward", "gradcheck", "gradgradcheck",
           "GradcheckError", "function", "Function", "FunctionCtx", "Variable", "variable", "profiler",
           "forward_ad"]


def _as_tuple(value, what: str) -> tuple:
    if isinstance(value, (engine._Tensor, graph.GradientEdge)):
        return (value,)
    if value is None:
        return ()
    if isinstance(value, Sequence):
        return tuple(value)
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")


def _make_grads(outputs: tuple, grad_outputs: tuple, is_grads_batched: bool = False) -> list:
    """The seed gradients: ones for scalar outputs when none are given, else checked user tensors."""
    Tensor = engine._Tensor
    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients [autograd_lab] give one "
                           "gradient, or None, per output")
    grads = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs else None
        if _is_edge(out):
            grads.append(_edge_grad(out, g, i))
            continue
        if g is None:
            data = out._data
            if data.size != 1 and out.requires_grad:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs. "
                    f"[autograd_lab] output {i} has shape {tuple(out.shape)}; pass gradient= (a tensor of that "
                    "shape, e.g. al.ones_like(out)) or reduce it first (out.sum())."
                )
            if data.dtype.kind != "f":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype!r}")
            if data.__class__ is _np.ndarray:  # (this runs for every loss.backward(): NumPy's ones directly)
                grads.append(Tensor._make(_np.ones(data.shape, data.dtype) if data.ndim else _np.array(1, data.dtype)))
            else:
                from ..creation import ones_like
                grads.append(ones_like(out))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__} [autograd_lab] the "
                            f"gradient of output {i} (shape {tuple(out.shape)}) must be a tensor of that shape")
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] has a shape of "
                f"{out.shape!r}."
            )
        if g.dtype is not out.dtype and g.is_floating_point():
            g = g.to(out.dtype)
        grads.append(g)
    return grads


def _edge_grad(edge, g, i: int):
    """The seed gradient for an output given as a ``GradientEdge``: the one passed, checked against the
    shape and dtype its node records for that output; ``None`` gives ones for a one-element output, as in PyTorch
    (on the device of the history's first leaf: a node records its outputs' shapes and dtypes, not their device)."""
    shape, dtype = edge.node._output_meta[edge.output_nr]
    if g is None:
        if int(_np.prod(shape)) != 1:
            raise RuntimeError(f"grad can be implicitly created only for scalar outputs [autograd_lab] the "
                               f"GradientEdge given as output {i} has shape {tuple(shape)}: pass its gradient in "
                               "grad_outputs")
        return engine._Tensor._make(_backend.namespace_for(_edge_device(edge.node)).ones(shape, dtype=dtype))
    if not isinstance(g, engine._Tensor):
        from ..creation import tensor as make_tensor
        g = make_tensor(g, dtype=_backend.from_np(dtype))
    if tuple(g.shape) != tuple(shape):
        raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] has a "
                           f"shape of {_engine_size(shape)!r}.")
    if g._data.dtype != dtype and g.is_floating_point():
        g = g.to(_backend.from_np(dtype))
    return g


def _edge_device(node):
    """The device of the first leaf (or custom Function output) found in ``node``'s history; the CPU if none."""
    stack, seen = [node], set()
    while stack:
        node = stack.pop()
        if isinstance(node, graph.AccumulateGrad):
            return node.variable.device
        devices = [d for d in getattr(node, "_output_devices", ()) if d is not None]
        if devices:
            return devices[0]
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return _backend.CPU


def _engine_size(shape):
    from ..tensor import Size
    return Size(shape)


def _is_edge(value) -> bool:
    return isinstance(value, graph.GradientEdge)


def _check_inputs(inputs: tuple, not_requiring_grad: str = "One of the differentiated Tensors does not require grad"
                  ) -> None:
    for t in inputs:
        if not _is_edge(t) and not isinstance(t, engine._Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if not _is_edge(t) and not t.requires_grad:
            raise RuntimeError(not_requiring_grad)


def _check_roots(outputs: tuple) -> None:
    for i, out in enumerate(outputs):
        if _is_edge(out):
            continue
        if not out.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn "
                "[autograd_lab] Set requires_grad=True on the leaf tensors you want gradients for, before "
                "computing with them (and not inside al.no_grad())."
            )


def prepare_backward(tensors, grad_tensors=None, *, retain_graph=None, create_graph=False, inputs=None,
                     accumulate=True, trace=False, yield_steps=True):
    """Check arguments as ``backward`` does and return the engine's step generator (used by the stepper)."""
    outputs = _as_tuple(tensors, "tensors")
    _check_roots(outputs)
    grads = _make_grads(outputs, _as_tuple(grad_tensors, "grad_tensors") if grad_tensors is not None else ())
    if retain_graph is None:
        retain_graph = create_graph
    input_list = None
    if inputs is not None:
        input_list = _as_tuple(inputs, "inputs")
        if not input_list:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        _check_inputs(input_list, "can't retain_grad on Tensor that has requires_grad=False [autograd_lab] backward("
                                  "inputs=...) accumulates into .grad of tensors that require grad only")
    return backward_steps(outputs, grads, retain_graph=retain_graph, create_graph=create_graph,
                          inputs=input_list, accumulate=accumulate, trace=trace, yield_steps=yield_steps)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:
    """Accumulate into ``.grad`` of the graph's leaves the gradients of ``tensors``.

    ``grad_tensors`` (one per tensor; ``None`` for scalars) seeds the vector-Jacobian product.
    ``retain_graph`` keeps saved tensors for another backward (defaults to ``create_graph``);
    ``create_graph`` records the backward itself for higher-order derivatives; ``inputs``
    restricts accumulation to those tensors.
    """
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.", DeprecationWarning, stacklevel=2)
        grad_tensors = grad_variables if grad_tensors is None else grad_tensors
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and "
            "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
            "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
            "your parameters to None after use to break the cycle and avoid the leak.", UserWarning, stacklevel=2)
    run_to_end(prepare_backward(tensors, grad_tensors, retain_graph=retain_graph, create_graph=create_graph,
                                inputs=inputs, yield_steps=False))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is left alone)."""
    from ..creation import zeros_like
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate gradient "
                      "for other parts of the graph, please use torch.autograd.backward.", FutureWarning, stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs, "outputs")
    if type(inputs) is dict:  # (e.g. dict(model.named_parameters())): the gradients come back under the same keys
        ins = tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    else:
        ins = _as_tuple(inputs, "inputs")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    _check_roots(outs)
    _check_inputs(ins)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        captured = _batched_grads(outs, ins, _as_tuple(grad_outputs, "grad_outputs") if grad_outputs is not None else (),
                                  retain_graph, create_graph)
    else:
        grads = _make_grads(outs, _as_tuple(grad_outputs, "grad_outputs") if grad_outputs is not None else ())
        captured = run_to_end(backward_steps(outs, grads, retain_graph=retain_graph, create_graph=create_graph,
                                             inputs=ins, accumulate=False, yield_steps=False))
    result = []
    for i, (g, t) in enumerate(zip(captured, ins)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                    f"allow_unused=True if this is the desired behavior. [autograd_lab] input {i} (shape "
                    f"{_input_shape(t)}) is not reachable from the outputs' grad_fn graph."
                )
            if materialize_grads:
                if _is_edge(t):
                    raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
                g = zeros_like(t, requires_grad=create_graph)
        result.append(g)  # (as it arrived: a grad_outputs tensor passed straight through is returned itself, as in
        # PyTorch; without create_graph nothing else has a history, and a forward-mode tangent stays on it)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


def _batched_grads(outputs: tuple, inputs: tuple, grad_outputs: tuple, retain_graph: bool, create_graph: bool) -> list:
    """``grad`` with ``is_grads_batched``: the first dim of each output gradient is a batch; one backward per row
    (PyTorch vmaps the rows; a loop gives the same values), the gradients stacked along a new first dim."""
    from ..ops.join import stack
    if len(grad_outputs) != len(outputs) or any(g is None for g in grad_outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs [autograd_lab] with "
                           "is_grads_batched=True, pass one batched gradient per output in grad_outputs")
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if _is_edge(out):
            raise RuntimeError("Batched grads are not supported with GradientEdge")
        if not isinstance(g, engine._Tensor) or g.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                             f"C++ to convert a 0-dim tensor to a number [autograd_lab] grad_outputs[{i}] has no batch "
                             "dim: with is_grads_batched=True its first dim is the batch")
        if tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {_engine_size(g.shape[1:])!r} and "
                f"output[{i}] has a shape of {out.shape!r}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    batch = {g.shape[0] for g in grad_outputs}
    if len(batch) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{[g.shape[0] for g in grad_outputs]} for the mapped dimension")
    rows = []
    for b in range(batch.pop()):
        grads = _make_grads(outputs, tuple(g[b] for g in grad_outputs))
        last = b == grad_outputs[0].shape[0] - 1
        rows.append(run_to_end(backward_steps(outputs, grads, retain_graph=retain_graph or not last,
                                              create_graph=create_graph, inputs=inputs, accumulate=False,
                                              yield_steps=False)))
    return [None if row[0] is None else stack(list(row)) for row in zip(*rows)] if rows else [None] * len(inputs)


def _input_shape(t) -> tuple:
    return tuple(t.node._output_meta[t.output_nr][0]) if _is_edge(t) else tuple(t.shape)

