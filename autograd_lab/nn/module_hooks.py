"""Calling a module, and the hooks around the call: forward pre-hooks and hooks, and backward hooks.

``Module`` inherits these methods. A module call runs, in order: the forward pre-hooks, ``forward``, the
forward hooks. With backward hooks, two custom Functions are added around ``forward``, as PyTorch adds them:

* ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` runs once the gradients
  with respect to the module's positional inputs are computed (``grad_input``, one entry per positional
  argument, ``None`` for a non-tensor or an input that needs no gradient) and may return replacements for
  them; ``grad_output`` holds the gradients with respect to the module's outputs.
* ``register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` runs when the gradients with
  respect to the outputs arrive, before the module's own backward, and may return replacements for them.

The mechanism is PyTorch's ``BackwardHook``: the tensor inputs and the tensor outputs each go through
``BackwardHookFunction``, an identity Function that returns its arguments as they are. The node it records
for the outputs sees the gradients coming in (``grad_output``: its pre-hooks run there); the node it records
for the inputs sees the gradients going out (``grad_input``: its hooks run there). Because the outputs are
returned as-is by a Function, modifying them in place is an error ("Output 0 of BackwardHookFunction is a view
and is being modified inplace..."), and so is a module that modifies its input in place (``ReLU(inplace=True)``).

``register_backward_hook`` is the deprecated, non-full form: the hook is put on the ``grad_fn`` of the output, so
it sees that one node's gradients, which are the module's only for a module that is a single op.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import RemovableHandle, _add_hook
from ..tensor import Tensor
from ..warn_once import user_stacklevel as _user_stacklevel

__all__ = ["ModuleHooks", "BackwardHook", "BackwardHookFunction"]

_BOTH_KINDS = ("Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only "
               "one of them.")


class BackwardHookFunction(Function):
    """Identity on tensors: returns its arguments as they are, so that its node marks where gradients enter
    (outputs) or leave (inputs) a module that has backward hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """The backward hooks of one module call: wraps the call's tensor inputs and outputs in
    ``BackwardHookFunction`` and runs the user's hooks from the nodes that records."""

    def __init__(self, module, hooks: list, pre_hooks: list) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None  # positions of the tensors among the arguments / outputs

    def setup_input_hook(self, args: tuple) -> tuple:
        args, self.input_index = self._wrap(args, lambda node: node.register_hook(self._input_hook))
        self.n_inputs = len(args)
        return args

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs, self.output_index = self._wrap((result,) if single else result,
                                                lambda node: node.register_hook(self._output_hook))
        self.n_outputs = len(outputs)
        return outputs[0] if single else outputs

    def _wrap(self, args: tuple, attach: Callable) -> tuple:
        """The arguments with their tensors passed through ``BackwardHookFunction`` (when one requires grad and
        grad mode is on), and the positions of the tensors (``None``: nothing wrapped)."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in positions]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        attach(next(t.grad_fn for t in wrapped if t.grad_fn is not None))
        new = list(args)
        for i, t in zip(positions, wrapped):
            new[i] = t
        return (tuple(new) if type(args) is tuple else type(args)(*new)), positions

    def _packed(self, positions, values, size: int) -> tuple:
        packed = [None] * size
        for i, value in zip(positions, values):
            packed[i] = value
        return tuple(packed)

    def _output_hook(self, grad_inputs, grad_outputs):
        """Runs on the outputs' node: the gradients with respect to the outputs arrived."""
        self.grad_outputs = self._packed(self.output_index, grad_outputs, self.n_outputs)
        for hook in self.pre_hooks:
            replaced = hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(replaced)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(replaced)
        grad_outputs = self.grad_outputs
        if self.input_index is None:  # no input needs a gradient: the full hooks run here, with grad_input all None
            if self.hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                              "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                              "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                              UserWarning, stacklevel=_user_stacklevel())
            for hook in self.hooks:
                result = hook(self.module, (None,) * self.n_inputs, grad_outputs)
                if result is not None and not all(r is None for r in result):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def _input_hook(self, grad_inputs, grad_outputs):
        """Runs on the inputs' node: the gradients with respect to the inputs are computed."""
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs (double backward)
            return None
        grads = self._packed(self.input_index, grad_inputs, self.n_inputs)
        for hook in self.hooks:
            replaced = hook(self.module, grads, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(grads):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(replaced)}, but "
                                   f"expected {len(grads)}")
            grads = tuple(replaced)
        self.grad_outputs = None
        return tuple(grads[i] for i in self.input_index)


class ModuleHooks:
    """The hook registration and the call of :class:`~autograd_lab.nn.Module` (see the module docstring)."""

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
                                  ) -> RemovableHandle:
        """Call ``hook(module, args)`` before ``forward``; a non-None result replaces the arguments.

        With ``with_kwargs=True`` the hook is ``hook(module, args, kwargs)`` and returns ``(args, kwargs)``.
        """
        handle = _add_hook(self._forward_pre_hooks, hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
                              ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after ``forward``; a non-None result replaces the output.

        With ``with_kwargs=True`` the hook is ``hook(module, args, kwargs, output)``.
        """
        handle = _add_hook(self._forward_hooks, hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients with respect to the module's inputs
        are computed; a non-None result (one entry per positional input) replaces ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_BOTH_KINDS)
        self._is_full_backward_hook = True
        handle = _add_hook(self._backward_hooks, hook)
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients with respect to the module's outputs arrive, before
        they go through the module; a non-None result (one entry per output) replaces ``grad_output``."""
        handle = _add_hook(self._backward_pre_hooks, hook)
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (PyTorch too): ``hook(module, grad_input, grad_output)`` on the ``grad_fn`` of the output, with
        that node's gradients. Use :meth:`register_full_backward_hook`."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_BOTH_KINDS)
        self._is_full_backward_hook = False
        return _add_hook(self._backward_hooks, hook)

    def _call_impl(self, *args, **kwargs):
        """Forward pre-hooks, ``forward``, forward hooks; backward hooks around them (module docstring)."""
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)  # no hooks (as PyTorch, decided on entry)
        args, kwargs = self._run_forward_pre_hooks(args, kwargs)
        full = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        backward_hook = None
        if full or self._backward_pre_hooks:
            backward_hook = BackwardHook(self, full, list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        output = self._run_forward_hooks(args, kwargs, self.forward(*args, **kwargs))
        if backward_hook is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                              f"Tensors but received {type(output)}", UserWarning, stacklevel=_user_stacklevel())
            output = backward_hook.setup_output_hook(output)
        if self._is_full_backward_hook is False and self._backward_hooks:
            _attach_non_full(self, args, output)
        return output

    def _run_forward_pre_hooks(self, args: tuple, kwargs: dict) -> tuple:
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs

    def _run_forward_hooks(self, args: tuple, kwargs: dict, output):
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        return output


def _attach_non_full(module, args: tuple, output) -> None:
    """``register_backward_hook``'s hooks on the ``grad_fn`` of the (first) output tensor, with PyTorch's warnings
    where that node's gradients are not the module's."""
    first = output
    while not isinstance(first, Tensor):
        first = next(v for v in first.values() if isinstance(v, Tensor)) if isinstance(first, dict) else first[0]
    node = first.grad_fn
    if node is None:
        return
    for hook in list(module._backward_hooks.values()):
        node.register_hook(lambda grad_input, grad_output, hook=hook: hook(module, grad_input, grad_output))
    outputs = (output,) if isinstance(output, Tensor) else output
    if not (isinstance(outputs, tuple) and all(isinstance(o, Tensor) for o in outputs)):
        what = "return a single Tensor or a tuple of Tensors"
    elif not all(isinstance(a, Tensor) for a in args):
        what = "take as input a single Tensor or a tuple of Tensors"
    elif {o.grad_fn for o in outputs if o.grad_fn is not None} != {node}:
        what = "have its outputs made by one autograd Node"
    elif {a.grad_fn for a in args if a.grad_fn is not None} != {child for child, _ in node.next_functions}:
        warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_input. Please use "
                      "register_full_backward_hook to get the documented behavior.", FutureWarning,
                      stacklevel=_user_stacklevel())
        return
    else:
        return
    warnings.warn(f"Using non-full backward hooks on a Module that does not {what} is deprecated and will be removed "
                  "in future versions. This hook will be missing some of the grad_output or grad_input. Please use "
                  "register_full_backward_hook to get the documented behavior.", FutureWarning, stacklevel=_user_stacklevel())

