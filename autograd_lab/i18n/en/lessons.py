"""The checkers of notebooks 00 to 07 (``course/ex00.py`` ... ``course/ex07.py``)."""

MESSAGES = {
    # -- 00: why autograd ----------------------------------------------------------------------------------
    "ex00.at_x": "at x={x:g}",
    "ex00.not_a_number": "central_difference should return a number; got {type}",
    "ex00.slip": "with h=0.1 on x**3 at x=1 yours gives {got:.6g}, which is {slip}. Expected 3.01.",
    "ex00.slip.forward": "a forward difference (f(x+h) - f(x)) / h: step both ways, to x+h and x-h",
    "ex00.slip.backward": "a backward difference (f(x) - f(x-h)) / h: step both ways, to x+h and x-h",
    "ex00.slip.twice": "twice the central difference: divide by 2h, the distance between x-h and x+h",
    "ex00.slip.undivided": "the difference not divided by 2h",
    "ex00.coarse_wrong": "with h=0.1 on x**3 at x=1 yours gives {got:.6g}; (f(x+h) - f(x-h)) / 2h gives 3.01.",
    "ex00.fine_wrong": "For f={name} at x={x:g}, h=1e-5: yours {got:.8g}, expected about {expected:.8g}.",
    "ex00.central_passed": "central_difference agrees with the true derivative, with an error that shrinks like h².",
    "ex00.w_after_backward": "w (after calling loss.backward())",
    "ex00.w_shape": "w should be a tensor of 2 elements: the slope w[0] and the intercept w[1].",
    "ex00.w_requires_grad": "w needs requires_grad=True, or autograd records nothing to differentiate.",
    "ex00.w_grad_none": "w.grad is None: build the loss from w, then call loss.backward().",
    "ex00.on_paper": "the gradient worked out on paper",
    # -- 01: excluding subgraphs ---------------------------------------------------------------------------
    "ex01.true_or_false": "True or False for each expression",
    "ex01.not_a_dict": "answers should be a dict like {{'a': True, ...}}; got {type}",
    "ex01.no_answer": "No answer yet for {keys}.",
    "ex01.quoted": ("Answer each with True or False, written without quotes ({shown}): a string such as 'False' is "
                    "not the boolean False."),
    "ex01.rule": "An output requires grad exactly when at least one input that autograd records requires grad.",
    "ex01.wrong_predictions": "{wrong} of {total} predictions are wrong:",
    "ex01.wrong_prediction": "  {key} = {expression}: requires_grad is {actual}, you said {given}",
    "ex01.the_model": "the model",
    "ex01.replaced": ("freeze_body replaced {names}: the exercise keeps every layer (the head is pretrained too). Set "
                      "requires_grad on the existing parameters instead of creating new ones."),
    "ex01.wrong_flags": "{wrong} of {total} parameters have the wrong requires_grad:",
    "ex01.wrong_flag": "  {name}: requires_grad={flag}, should be {right}",
    "ex01.stray": "backward still reached {names}",
    "ex01.frozen": "Only fc.weight and fc.bias require grad; a backward pass leaves the body's .grad at None.",
    # -- 02: turning gradients off -------------------------------------------------------------------------
    "ex02.not_a_tensor": "evaluate should return the model's output tensor; got {type}",
    "ex02.still_off": ("gradient recording is still off after evaluate returned: use `with al.no_grad():` (a block) "
                       "rather than al.set_grad_enabled(False) on its own, so that the previous mode comes back."),
    "ex02.its_grad_fn": "its grad_fn is {node}",
    "ex02.it_requires_grad": "it requires grad",
    "ex02.recorded": ("the output was recorded ({recorded}): run the model inside `with al.no_grad():` or "
                      "`with al.inference_mode():`."),
    "ex02.saved_then_detached": ("the output has no grad_fn, but {saved} tensors were saved for a backward while it "
                                 "was computed: a graph was recorded and then cut off (detach?), which costs the "
                                 "memory and time no_grad saves. Run the forward inside `with al.no_grad():` so that "
                                 "nothing is recorded."),
    "ex02.no_eval": ("model.eval() was not called (or was undone): Dropout still drops activations, so the outputs "
                     "are random. Call model.eval() before the forward pass."),
    "ex02.eval_outputs": "the model's outputs in eval mode",
    "ex02.unchanged": ("sgd_step changed no parameter: subtract lr * p.grad from each p in params, in place, under "
                       "`with al.no_grad():`."),
    "ex02.replaced": ("params[{i}] was replaced by a new tensor: update it in place (p -= ..., or p.sub_(...)) so that "
                      "the model and the optimizer keep pointing at the same parameter."),
    "ex02.not_a_leaf": ("params[{i}] is no longer a leaf (its grad_fn is {node}): the update was recorded. Do it "
                        "under `with al.no_grad():`."),
    "ex02.no_requires_grad": "params[{i}] no longer requires grad: the next forward pass would not train it.",
    "ex02.through_data": ("params[{i}] changed, but its version counter did not: the update went through .data, which "
                          "hides it from autograd (a graph that saved the parameter would not notice, and backward "
                          "could return wrong gradients silently). Update p itself under `with al.no_grad():`; the "
                          "version check then still protects you."),
    "ex02.uphill": "params[{i}] moved up the gradient: subtract lr * p.grad to go down the loss.",
    "ex02.sgd_passed": "Both parameters moved by -lr * grad, in place, and are still leaves that require grad.",
    "ex02.scenario.a": "A validation loop: compute predictions and a loss for logging, never call backward.",
    "ex02.scenario.b": "One train_or_eval(loader, train: bool) function that records a graph only when train is True.",
    "ex02.scenario.c": "A model served behind an API: predictions only, the results never enter a training computation.",
    "ex02.scenario.d": ("Use the current prediction as a fixed target (e.g. a teacher's output) inside a loss that is "
                        "backpropagated."),
    "ex02.scenario.e": "Make Dropout keep every activation and BatchNorm use its running statistics.",
    "ex02.why.a": ("nothing from the loop is used by a later backward: no_grad records nothing (inference_mode also "
                   "works here)"),
    "ex02.why.b": "set_grad_enabled(train) takes the decision as an argument",
    "ex02.why.c": ("results never re-enter autograd, so inference_mode's extra savings (no version counters, no view "
                   "tracking) are safe"),
    "ex02.why.d": "detach() cuts one tensor out of the graph while the rest of the loss is still recorded",
    "ex02.why.e": "model.eval() changes how layers compute; it does not stop recording",
    "ex02.hint.a": "is anything computed here ever differentiated?",
    "ex02.hint.b": "the decision to record is a value known only when the function is called.",
    "ex02.hint.c": "nothing here ever enters autograd again, so the strictest mode, which skips even the bookkeeping, is safe.",
    "ex02.hint.d": "only one tensor must stop carrying history; the rest of the loss is still recorded.",
    "ex02.hint.e": "this is about how layers compute, not about recording.",
    "ex02.one_of_each": "one of {choices} for each scenario",
    "ex02.not_a_dict": "answers should be a dict like {{'a': 'no_grad', ...}}; got {type}",
    "ex02.because": "  {key}: {choice}, because {why}",
    # -- 03: how history is encoded ------------------------------------------------------------------------
    "ex03.not_a_dict": "count_nodes should return a dict of node name -> count; got {type}",
    "ex03.for_graph": "For {graph}:",
    "ex03.count": "  {name}: yours {got}, expected {expected}",
    "ex03.hint_visited": "Hint: a node reached along two paths is one node; remember the nodes you have visited.",
    "ex03.count_passed": "Your walk counts each node once, shared subexpressions and leaves used twice included.",
    "ex03.not_a_list": "leaves_reached should return a list (or set) of tensors; got {type}",
    "ex03.not_tensors": "leaves_reached should return tensors: AccumulateGrad's .variable, not the node itself.",
    "ex03.leaves_wrong": ("For {graph}: {missing} leaf(s) missing and {extra} extra. Every leaf that requires grad has "
                          "an AccumulateGrad node; a tensor that needs no grad has no node at all."),
    "ex03.leaves_passed": "The leaves are exactly the .variable of the AccumulateGrad nodes.",
    # -- 04: saved tensors ---------------------------------------------------------------------------------
    "ex04.names_for_each_op": "a set of names for each op (e.g. {{'self', 'other'}}, or set() for none)",
    "ex04.not_a_dict": "answers should be a dict of sets; got {type}",
    "ex04.no_answer": "  {key} = {op}: no answer yet",
    "ex04.wrong_saves": "  {key} = {op}: you said {given}, it saves {expected}",
    "ex04.answers_off": "{wrong} of {total} answers are off:",
    "ex04.saves_passed": "Each node saves exactly what its derivative formula reads, and nothing more.",
    "ex04.not_whole_bytes": "saved_bytes should return a whole number of bytes; got {type}",
    "ex04.bytes_passed": ("{expected} bytes in {buffers} buffers, although autograd saved {saved} tensors: the tanh "
                          "output is saved by Tanh (its result) and by the next Linear (its input)."),
    "ex04.hint_counted_twice": (" Yours adds up all {saved} saved tensors, but the tanh output is saved twice (by Tanh "
                                "and by the next Linear) and is one buffer in memory: count each data_ptr() once."),
    "ex04.hint_elements": " Yours is a quarter of it: count bytes (tensor.nbytes), not elements (each float32 is 4 bytes).",
    "ex04.hint_nothing": " Nothing was counted: run forward() inside `with saved_tensors_hooks(pack, unpack):`.",
    "ex04.bytes_wrong": "yours is {got} bytes; the buffers autograd kept hold {expected}.",
    "ex04.your_hooks": "your pack and unpack functions",
    "ex04.pack_none": "pack_hook returned None: return what should be kept (the float16 tensor)",
    "ex04.unpack_not_tensor": "unpack_hook must return a Tensor, got {type}",
    "ex04.unpack_dtype": ("unpack_hook returned a tensor of dtype {dtype} for one saved as {wanted}: give back the dtype "
                          "that was saved (.to(al.float32)), or the backward formulas mix dtypes"),
    "ex04.hooks_raised": "running a model with your hooks raised {type}: {error}",
    "ex04.not_half": ("{wrong} of {total} packed values are not float16 (got {dtype}): pack_hook should return "
                      "tensor.to(al.float16), or a NumPy float16 array."),
    "ex04.grad_none": "{name}.grad is None after backward",
    "ex04.grad_dtype": "{name}.grad is {dtype}: unpack_hook should give back float32 (.to(al.float32)).",
    "ex04.exact_within_half": "the exact float32 gradient (within float16's precision)",
    "ex04.half_passed": ("All {saved} saved tensors were kept as float16, half the bytes, and the gradients stay within "
                         "float16's precision of the exact ones."),
    # -- 05: backward step by step -------------------------------------------------------------------------
    "ex05.hint_times_v": "Hint: that is 3x² alone; backward(gradient=v) multiplies it by v, element by element.",
    "ex05.stale": ("the .grad left by an earlier step was still there (every gradient is 1 more than it should be): "
                   "clear the gradients with model.zero_grad() once, before the first part"),
    "ex05.unscaled": ("each part's loss is the mean over its slice, so the {parts} backward passes add up to {parts} "
                      "times the full-batch gradient: divide each part's loss by parts"),
    "ex05.unscaled_and_stale": "{unscaled}; and {stale}",
    "ex05.cleared": ("only the last part's gradient is left: model.zero_grad() inside the loop clears what the earlier "
                     "parts added. Clear once, before the loop"),
    "ex05.cleared_and_unscaled": "{cleared} (and divide each part's loss by parts)",
    "ex05.calls": "accumulate called backward {calls} time(s); with parts=3 it should call it once per part.",
    "ex05.grad_none": "{name}.grad is None: did accumulate set the gradients to None after backward?",
    "ex05.not_full_batch": "Not the full-batch gradient: {why}.",
    "ex05.full_batch": "the full-batch gradient",
    "ex05.accumulate_passed": "Three backward passes on thirds of the batch, added up in .grad, give the full-batch gradient.",
    # -- 06: hooks -----------------------------------------------------------------------------------------
    "ex06.your_hook": "your hook function",
    "ex06.changed_argument": ("clip_hook changed its argument in place. A hook must not modify the gradient it "
                              "receives (other hooks and the engine still use it): return a new tensor, e.g. "
                              "grad.clamp(-1, 1)."),
    "ex06.returned_none": ("clip_hook returned None, which tells autograd to keep the gradient unchanged. Return the "
                           "clipped gradient."),
    "ex06.not_a_tensor": "clip_hook should return a Tensor (the new gradient); it returned a {type}.",
    "ex06.clamped": "the gradient clamped to [-1, 1]",
    "ex06.x_grad_in_graph": "x.grad (hook registered on h = x * 1)",
    "ex06.clipped": "the clipped gradient [1, -0.5, -1]",
    "ex06.clip_passed": "clip_hook clips each element to [-1, 1], and in a graph the clipped gradient is what reaches x.",
    "ex06.labels_in_order": "a list of the labels, in the order you expect them to fire",
    "ex06.not_a_list": "Give a list of strings, e.g. ['h hook', ...].",
    "ex06.six_labels": "the six labels, in the order you expect them to fire",
    "ex06.unknown_labels": "Unknown label(s) {unknown}. Use exactly these: {labels}.",
    "ex06.each_once": "Each of the {total} labels fires exactly once; your list has {given} entries",
    "ex06.and_misses": " and misses {missing}.",
    "ex06.full_stop": ".",
    "ex06.order_passed": ("Tensor hooks run before their node's pre-hooks, the node runs, then its post-hooks; a "
                          "leaf's hooks run before its .grad is accumulated, and post-accumulate hooks after."),
    "ex06.first_wrong": ("At position {position} you wrote {given} but {actual} fires there. Backward runs from the "
                         "loss towards the leaves, and at each tensor: its hooks, then the pre-hooks of its grad_fn, "
                         "the node itself, then the node's post-hooks."),
    "ex06.first_wrong_after": ("The first {position} label(s) are right; at position {position} you wrote {given} but "
                               "{actual} fires there. Backward runs from the loss towards the leaves, and at each "
                               "tensor: its hooks, then the pre-hooks of its grad_fn, the node itself, then the node's "
                               "post-hooks."),
    "ex06.your_sgd_in_backward": "your sgd_in_backward function",
    "ex06.not_a_hook": "sgd_in_backward(lr) should return the hook (a function of the parameter); it returned {type}.",
    "ex06.hook_raised": "backward raised {type} inside your hook: {error}",
    "ex06.not_updated": ("{name} was not updated: the hook should change the parameter in place, e.g. "
                         "param.sub_(lr * param.grad) (hooks run in no-grad mode, so this is allowed on a leaf)."),
    "ex06.after_backward": "{name} after backward",
    "ex06.plain_sgd": "a plain SGD step, param - lr * grad",
    "ex06.grad_kept": ("{name} was updated correctly, but {name}.grad is still set. Release it in the hook "
                       "(param.grad = None): that is what frees each gradient as soon as it has been used."),
    "ex06.sgd_passed": "every parameter took its SGD step during backward, and no gradient was kept afterwards.",
    # -- 07: in-place operations and version counters ------------------------------------------------------
    "ex07.versions_dict": "a dict such as {{'base': 0, 'row': 0, 'copy': 0}}",
    "ex07.number_for_each": "a number for each of {names}",
    "ex07.whole_numbers": "Give each version as a whole number without quotes: {shown}.",
    "ex07.versions_passed": ("a view shares its base's counter (every in-place op on either bumps both), a clone "
                             "starts its own at 0, and an assignment like base[0] = 5.0 is an in-place op too."),
    "ex07.version": "  {name}: yours {given}, actually {actual}",
    "ex07.hint_view": ("Hint: row is a view of base, so they count the same in-place ops. Count add_, mul_ and the item "
                       "assignment."),
    "ex07.hint_clone": "Hint: clone() makes new memory with a new counter starting at 0.",
    "ex07.your_fixed": "your fixed function",
    "ex07.fixed_none": "fixed(x) returned None: write its body so that it returns the sum, like buggy(x) does.",
    "ex07.fixed_not_scalar": "fixed(x) should return a single-element tensor (the sum), like buggy(x).",
    "ex07.buggy_value": "buggy(x)'s value",
    "ex07.fixed_no_grad_fn": "fixed(x) returns the right number but has no grad_fn: don't detach, and don't use no_grad.",
    "ex07.still_raises": ("backward through fixed(x) still raises:\n{error}\nReplace the in-place op with its "
                          "out-of-place form (s = s * 2), or clone before changing it."),
    "ex07.changed_x": "fixed(x) changed its input x in place; it should leave x alone.",
    "ex07.gradient_of_sum": "the gradient of sum(2 * sigmoid(x) * x)",
    "ex07.fixed_passed": "same value as buggy(x), and backward now works: x.grad matches.",
    "ex07.bools_dict": "a dict of True/False, one per snippet",
    "ex07.true_or_false_for": "True or False for {names}",
    "ex07.quoted": ("Answer each with True or False, written without quotes: {shown} (a string such as 'False' is not "
                    "the boolean False)."),
    "ex07.runs": "  {name}: runs without error (you said it raises).",
    "ex07.raises": "  {name}: raises (you said it runs): {error}",
    "ex07.raises_passed": ("in-place ops are refused on leaves that require grad (unless under no_grad), and backward "
                           "refuses a tensor that was changed after a node saved it, also through a view."),
    "ex07.hint_saved": ("Hint: ask of each op whether it saved the tensor that is later changed (exp saves its result, "
                        "add saves nothing, sin saves its input)."),
}
