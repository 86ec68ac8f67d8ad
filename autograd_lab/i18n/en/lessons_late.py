"""The checkers of notebooks 08 to 16 (``course/ex08.py`` ... ``course/ex16.py``)."""

MESSAGES = {
    # -- 08: custom functions ------------------------------------------------------------------------------
    "ex08.your_class": "your {cls} class",
    "ex08.not_a_function_class": "Pass the class itself (a subclass of al.autograd.Function), not {type}.",
    "ex08.forward_raised": "{cls}.apply raised {type} in forward: {error}",
    "ex08.forward_none": "{cls}.forward returned None: replace the `...` with code that returns its output.",
    "ex08.gradcheck_failed": ("gradcheck failed for {what}: {head}\n{detail}\nEach entry is d output[row] / d input[col]: "
                              "'numerical' is the finite-difference slope, 'analytical' what your backward returned."),
    "ex08.backward_of_raised": "backward of {what} raised {type}: {error}",
    "ex08.slope_none": "backward returned None: return grad_output times the derivative of softplus at x.",
    "ex08.not_a_tensor": "forward should return a Tensor; it returned {type}.",
    "ex08.nothing_saved": ("forward saved nothing with ctx.save_for_backward. Save x there (not as ctx.x = x): saved "
                           "tensors get the version check and the saved-tensor hooks."),
    "ex08.ignores_grad_output": ("backward ignores grad_output: with grad_output = 2 it returns the same as with 1. The "
                                 "chain rule multiplies: return grad_output * sigmoid(x)."),
    "ex08.overflow": ("In float32, Softplus.apply gives {values} at x = [-100, 100]: exp(100) overflows to inf (float32 "
                      "stops near 3.4e38, about exp(88.7)). Rewrite it so that nothing large is exponentiated: "
                      "softplus(x) = max(x, 0) + log1p(exp(-|x|)), which gives 100 at x = 100."),
    "ex08.far_value": "Softplus.apply(x) at x = [-100, 100] in float32",
    "ex08.softplus_stable": "softplus, computed without overflow",
    "ex08.slope_overflow": ("In float32 the slope at x = [-100, 100] is {slope}: the backward overflows too. x.sigmoid() "
                            "(or 1 / (1 + exp(-x))) stays finite; exp(x) / (1 + exp(x)) gives inf / inf = nan."),
    "ex08.softplus_passed": ("values, saved input and gradients are right, gradcheck passes, and it stays finite at "
                             "x = ±100 in float32."),
    "ex08.linear_inputs": "Linear (inputs x, weight, bias)",
    "ex08.no_x_grad_raised": "with x not requiring grad, backward raised {type}: {error}",
    "ex08.three_grads": "backward should return a tuple of three gradients (x, weight, bias).",
    "ex08.needless_grad": ("x does not require grad here (ctx.needs_input_grad is {needs}), yet backward computed a "
                           "gradient for it. Return None for it: test ctx.needs_input_grad[0] first."),
    "ex08.missing_grad": "weight and bias need gradients, but backward returned None for one of them.",
    "ex08.linear_passed": "gradcheck passes, and backward computes only the gradients that ctx.needs_input_grad asks for.",
    "ex08.two_outputs": "forward should return two tensors: (out, mask).",
    "ex08.mask_values": "1.0 where x > 0, else 0.0",
    "ex08.mask_dtype": "mask should be floating point (like x), not {dtype}: use (x > 0).to(x.dtype).",
    "ex08.mask_requires_grad": ("mask requires grad. It is a float tensor made from x, so autograd assumes it is "
                                "differentiable unless you call ctx.mark_non_differentiable(mask) in forward."),
    "ex08.out_no_grad": "out does not require grad: only mask should be marked non-differentiable.",
    "ex08.first_output": "the first output of ReluWithMask",
    "ex08.mask_passed": "mask needs no gradient, and the gradient of out passes only where x > 0.",
    # -- 09: higher-order gradients and the functional API -------------------------------------------------
    "ex09.jacobian_none": "my_jacobian returned None: replace the `...` with code that returns the Jacobian.",
    "ex09.for_function": "{name} for {label}",
    "ex09.jacobian_passed": "row i of the Jacobian is the gradient of output i: one backward (or grad) call per row.",
    "ex09.hint_create_graph": "Hint: the first grad needs create_graph=True so that its result can be differentiated.",
    "ex09.hvp_none": "my_hvp returned None: replace the `...` with code that returns H @ v.",
    "ex09.hvp_passed": "differentiating (grad · v) once more gives H v, at the cost of about two backward passes.",
    "ex09.hint_requires_grad": ("Hint: the points come in without requires_grad; call x.requires_grad_() before "
                                "critic(x), so that there is a gradient with respect to x to take."),
    "ex09.penalty_not_scalar": "gradient_penalty should return a single-element tensor (the mean penalty).",
    "ex09.reference_penalty": "the reference penalty",
    "ex09.hint_mean": "Hint: yours is {times} times the mean: sum over the samples, then divide (.mean()).",
    "ex09.penalty_no_grad_fn": ("the penalty has the right value but no grad_fn, so it cannot train the critic. "
                                "Compute the inner gradient with al.autograd.grad(..., create_graph=True)."),
    "ex09.reference_gradient": "the reference penalty's gradient",
    "ex09.penalty_passed": "the penalty and its gradients with respect to every parameter match: a double backward.",
    # -- 10: training ----------------------------------------------------------------------------------------
    "ex10.frozen_mlp": "an MLP whose first layer is frozen",
    "ex10.count_none": "count_parameters returned None: replace the `...` with code that returns the count.",
    "ex10.counted_all": ("for {label} you counted all {everything} parameters; only those with requires_grad=True are "
                         "trained ({expected})."),
    "ex10.count_wrong": ("for {label} the count is {expected}, you returned {got}. Add up p.numel() over "
                         "model.parameters() that require grad (weights and biases)."),
    "ex10.count_passed": "weights and biases that require grad, element by element, frozen ones left out.",
    "ex10.no_step": "the parameters did not change: call optimizer.step() after loss.backward().",
    "ex10.cleared_after_backward": ("optimizer.step() found no gradients: zero_grad() ran after backward and cleared "
                                    "them. The order is zero_grad, forward, loss, backward, step."),
    "ex10.no_gradient": ("optimizer.step() ran, but no gradient had reached the parameters: call loss.backward() before "
                         "step(), on a loss computed from model(xb) (a loss built from a detached output has no path "
                         "back to the model)."),
    "ex10.loss_none": "train_step returned None: return the loss as a number (loss.item()).",
    "ex10.loss_tensor": ("train_step returned a Tensor: return loss.item(), a float, so that the graph is not kept alive "
                         "by a list of losses."),
    "ex10.loss_wrong": "step {step}: the loss should be {expected:.5f} (cross_entropy of model(xb) and yb), got {got:.5f}.",
    "ex10.after_step": "{name} after step {step}",
    "ex10.two_steps": "two reference SGD steps",
    "ex10.no_zero_grad": ("The first step was right, the second is not: optimizer.zero_grad() was not called, so the "
                          "second backward added onto the first one's gradients."),
    "ex10.step_passed": "zero_grad, forward, loss, backward, step: the parameters match two reference SGD steps.",
    "ex10.not_whole": ("{call} returned {got}, not a whole number: a layer has a whole number of positions. Use floor "
                       "division (//), which keeps the positions where the kernel fits entirely."),
    "ex10.size_wrong": ("{call} should be {expected} (what al.nn.Conv2d gives), got {got}. Padding adds to both sides; "
                        "count the positions where the whole kernel fits, keeping every stride-th one."),
    "ex10.size_passed": "(size + 2·padding − kernel_size) // stride + 1, for every case, as al.nn.Conv2d computes it.",
    # -- 11: history, the 2017 API ---------------------------------------------------------------------------
    "ex11.predict_none": "modern_predict returned None: return the model's output.",
    "ex11.under_no_grad": "model(x) under al.no_grad()",
    "ex11.still_grad_fn": "the output still has a grad_fn: run the forward inside `with al.no_grad():`.",
    "ex11.saved_then_detached": ("the output has no grad_fn, but {saved} tensors were saved for a backward while it "
                                 "was computed: a graph was recorded and then cut off (detach?). Run the forward under "
                                 "al.no_grad() so that nothing is recorded or saved."),
    "ex11.predict_passed": "no graph recorded, nothing saved: what volatile=True was for, now spelled al.no_grad().",
    "ex11.modern.A": "loss = -(reward * log_prob).sum(); loss.backward()",
    "ex11.modern.B": "y.grad_fn",
    "ex11.modern.C": "t.requires_grad_() (a tensor is a Variable now)",
    "ex11.modern.D": "y.backward(retain_graph=True)",
    "ex11.modern.E": "with al.no_grad(): ...",
    "ex11.why.1": "Variable and Tensor merged in PyTorch 0.4: every tensor has requires_grad, grad and grad_fn.",
    "ex11.why.2": "volatile was a flag on inputs; no_grad is a mode for a block of code.",
    "ex11.why.3": "creator was renamed grad_fn.",
    "ex11.why.4": "retain_variables was renamed retain_graph.",
    "ex11.why.5": "stochastic functions are gone: you write the score-function loss yourself.",
    "ex11.why_separator": " ",
    "ex11.letters_dict": "a dict such as {{'1': 'A', ...}}",
    "ex11.letter_for": "a letter for {keys}",
    "ex11.not_a_letter": "not one of A-E",
    "ex11.chose": "  {old}  ->  you chose {given} ({modern})",
    "ex11.loss_not_scalar": ("score_function_loss should return a one-element tensor that depends on probs (with a "
                             "grad_fn), so that backward can reach probs."),
    "ex11.with_case": "With probs={weights}, sample [{index}], reward {reward}: {message}",
    "ex11.hint_normalise": ("Yours moves only the sampled entry: that is 2017's reinforce, which treated the weights as "
                            "probabilities. Normalise first: log(probs[sample] / probs.sum())."),
    "ex11.through_softmax": "logits.grad through a softmax",
    "ex11.reinforce_2017": "2017's reinforce through the same softmax",
    "ex11.score_passed": ("your loss gives today's score-function gradient, -reward * d log p(sample); through a softmax "
                          "it matches what 2017's reinforce gave the logits."),
    # -- 12: checkpointing and profiling ---------------------------------------------------------------------
    "ex12.two_numbers": "two whole numbers: the activations kept, and the aten::addmm calls",
    "ex12.not_whole": "Give two whole numbers without quotes; got {activations} and {addmm_calls}.",
    "ex12.activations_wrong": ("  activations: yours {given}, actually {kept}. The plain first half keeps its input and "
                               "the four Tanh outputs (each Tanh output is also the next Linear's input: one buffer); "
                               "the checkpoint keeps only its input, the fourth Tanh output, already counted."),
    "ex12.calls_wrong": ("  aten::addmm calls: yours {given}, actually {calls}: eight in the forward, and the "
                         "{recomputed} Linear layers of the checkpointed half run again inside backward. (A Linear's "
                         "backward is AddmmBackward0, a node, not an aten::addmm call.)"),
    "ex12.passed": ("{kept} activations kept instead of 9, for {recomputed} recomputed matrix products: checkpointing "
                    "trades the memory of the half it covers for one more forward pass of that half."),
    # -- 14: broadcasting ------------------------------------------------------------------------------------
    "ex14.call": "sum_to(grad of shape {grad_shape}, {shape})",
    "ex14.not_a_tensor": "sum_to should return a tensor; for a gradient of shape {grad_shape} it returned {type}.",
    "ex14.hint_keepdim": (" The numbers may be right but the shape is not: a dimension of size 1 in the input must stay "
                          "(sum it with keepdim=True), and the leading dimensions it did not have must go."),
    "ex14.shape_wrong": "{call} has shape {got}, but the gradient of an input of shape {shape} must have that shape.",
    "ex14.engine_sum_to": "the engine's sum_to",
    "ex14.sum_to_passed": ("leading dimensions summed away, dimensions of size 1 summed with keepdim: the reduction the "
                           "engine applies to every gradient of a broadcast input."),
    "ex14.two_grads": "x_grad and y_grad (nested lists, in the shapes of x and y)",
    "ex14.not_nested": "{name} should be numbers in nested lists, such as [[0.0], [0.0]]; got {got}",
    "ex14.grad_shape": ("{name} has shape {shape}, but a gradient has the shape of its input, {expected}: the (2, 3) "
                        "gradient of the product is summed back down."),
    "ex14.hint_three_terms": ("Hint: each element of x meets all three elements of y in the product, so its gradient "
                              "adds up three terms."),
    "ex14.product_passed": ("x[i] is multiplied by every y[j], so x.grad[i] = y.sum() = 6; y[j] by every x[i], so "
                            "y.grad[j] = x.sum() = 3."),
    # -- 15: numerical stability -----------------------------------------------------------------------------
    "ex15.not_scalar": "{call} should return a one-element tensor; got {got}",
    "ex15.builtin": "that is al.logsumexp itself: write it from max, exp, sum and log, to see the trick.",
    "ex15.overflow": ("logsumexp({values}) gives {value} in float32, where the answer is {expected:.4f}: exp of the "
                      "inputs overflows (or underflows to 0, whose log is -inf). Subtract the largest input first: "
                      "log Σ exp(x) = m + log Σ exp(x - m), with m = x.max()."),
    "ex15.value_wrong": "{call} gives {value:.6g}, expected {expected:.6g}.",
    "ex15.no_grad_fn": ("no gradient reached x: the result has no grad_fn. Build it from x with tensor operations, "
                        "without .item(), .numpy() or .detach()."),
    "ex15.backward_raised": "backward through {call} raised: {error}",
    "ex15.grad_none_x": "no gradient reached x: build the result from x with tensor operations, without .item() or .detach().",
    "ex15.gradient_of": "the gradient of {call}",
    "ex15.logsumexp_passed": ("finite values and the softmax as the gradient, from inputs of -1000 to 1000 in float32: "
                              "the largest input is factored out, so exp never sees a number above 0."),
    "ex15.distance_no_grad_fn": ("no gradient reached a: the distance has no grad_fn. Build it from a with tensor "
                                 "operations, without .item(), .numpy() or .detach()."),
    "ex15.grad_none_a": "no gradient reached a: build the distance from a with tensor operations.",
    "ex15.nan_at_zero": ("at a == b the gradient is {grad}: sqrt's derivative 1 / (2 sqrt(s)) is inf at s = 0, and inf "
                         "times the zero gradient of s is nan. Keep sqrt away from 0 in the branch you do not use: "
                         "safe = al.where(s > 0, s, 1.0), then al.where(s > 0, safe.sqrt(), 0.0)."),
    "ex15.distance_grad": "d distance / d a at a={a}, b={b}",
    "ex15.distance_reference": "(a - b) / distance, and 0 where a == b",
    "ex15.distance_passed": "the right distances, and a gradient of 0 instead of nan where a == b.",
    "ex15.large": "large gradients",
    "ex15.small": "small gradients",
    "ex15.not_a_norm": "clip_grad_norm_ should return the total norm (a number or a one-element tensor); got {got}",
    "ex15.third_parameter": "the third parameter had no gradient and now has one: skip parameters whose .grad is None.",
    "ex15.by_value": ("that clips each element to [-1, 1] (clipping by value, as in notebook 6), which changes the "
                      "gradient's direction. Clipping by norm scales all gradients by the same factor, "
                      "max_norm / total_norm, so the direction is kept."),
    "ex15.one_by_one": ("each parameter's gradient now has norm 1: they were clipped one by one. The norm to bound is "
                        "the total over all parameters, sqrt(Σ ‖grad‖²), and every gradient gets the same factor."),
    "ex15.clipped_by_norm": "the gradient clipped by total norm",
    "ex15.norm_wrong": ("with {label} the returned norm is {got:.6g}; it should be the total norm before clipping, "
                        "{total:.6g}."),
    "ex15.clip_passed": ("one factor for all gradients, only when their total norm is above max_norm; the norm from "
                         "before is returned, as torch.nn.utils.clip_grad_norm_ does."),
    # -- 16: common bugs -------------------------------------------------------------------------------------
    "ex16.bug.zero_grad": "the gradients of earlier steps are never cleared",
    "ex16.bug.data": "a change made through .data, hidden from the version counter",
    "ex16.bug.rebind": "a parameter rebound to a new tensor instead of updated in place",
    "ex16.bug.detached": "a loss with no path back to the parameters",
    "ex16.bug.broadcast": "prediction and target of different shapes, silently broadcast",
    "ex16.hint.a": "what does .grad hold at the start of the second call?",
    "ex16.hint.b": "print the shapes: model(x).squeeze(1) is (N,), y is (N, 1). What is the shape of their difference?",
    "ex16.hint.c": "after loss.backward(), which tensors have a .grad? Follow loss.grad_fn.",
    "ex16.hint.d": "sigmoid saved its output for backward. Who can see that the output changed?",
    "ex16.hint.e": "the optimizer holds the parameters it was given. Which tensors does it update at its next step?",
    "ex16.one_of_each": "one of {bugs} for each step",
    "ex16.not_a_dict": "answers should be a dict like {{'a': 'zero_grad', ...}}; got {type}",
    "ex16.bug_named": "  {step}: {bug}",
    "ex16.case.whole": "the loss of the whole model",
    "ex16.case.detached": "a loss computed after .detach() of the hidden layer",
    "ex16.case.item": "a loss rebuilt from .item()",
    "ex16.case.bias": "a loss that uses only the first layer's bias",
    "ex16.not_names": "unreached should return a list of parameter names; for {label} it returned {got}",
    "ex16.ran_backward": ("unreached ran backward (a parameter now has a .grad): walk the graph instead, from "
                          "loss.grad_fn through next_functions to the AccumulateGrad nodes."),
    "ex16.misses": "it misses {missing}",
    "ex16.lists": "it lists {extra}, which the backward does reach",
    "ex16.and": " and ",
    "ex16.no_grad_fn": " This loss has no grad_fn at all: nothing is reachable.",
    "ex16.unreached_wrong": ("For {label}: {detail}.{hint} Compare the AccumulateGrad nodes' .variable with each "
                             "parameter by identity (is), not by value."),
    "ex16.unreached_passed": ("you can now tell, before training, which parameters a loss will train: a detached tensor "
                              "or a loss rebuilt from a number shows up as parameters left out."),
}
