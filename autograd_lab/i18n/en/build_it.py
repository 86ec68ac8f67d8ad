"""The checkers of the build-your-own track, notebooks B1 to B6 (``course/exb1.py`` ... ``course/exb6.py``)."""

MESSAGES = {
    "build.backward_for": "backward, for {graph}",
    "build.for_case": "For {graph}: {message}",
    # -- B1: a tensor and its graph --------------------------------------------------------------------------
    "exb1.not_a_pair": "gradient_edge({what}) returned {edge}; it should return a pair (node or None, 0).",
    "exb1.second_item": ("gradient_edge({what}) returned {item} as the pair's second item; it should be 0 (which "
                         "output of the node the tensor is: our ops have one output)."),
    "exb1.leaf_none": ("gradient_edge(leaf) returned (None, 0) for a leaf that requires grad: its gradient must go to an "
                       "AccumulateGrad node, which will add it into leaf.grad."),
    "exb1.leaf_variable": "gradient_edge(leaf) returned a node whose .variable is not the leaf: make it with AccumulateGrad(t).",
    "exb1.leaf_next": "the AccumulateGrad node should have no next_functions: a leaf's gradient goes nowhere further.",
    "exb1.constant_node": ("gradient_edge(constant) returned a node for a tensor that does not require grad: no gradient "
                           "is wanted for it, so its edge is (None, 0) and backward will skip it."),
    "exb1.result_node": ("gradient_edge(result) should send the gradient to result.grad_fn, the node that made it; it "
                         "returned {node}."),
    "exb1.second_call": "gradient_edge(leaf), called a second time",
    "exb1.two_accumulators": ("Called twice on the same leaf, gradient_edge made two AccumulateGrad nodes. A leaf has "
                              "one: keep it on the tensor (t.accumulator) the first time and return it after, so that "
                              "the gradients of every path that reaches the leaf end up in one place."),
    "exb1.edge_passed": "no node for a constant, grad_fn for a result, and one AccumulateGrad per leaf, kept on the leaf.",
    "exb1.return_out": ("record should return out (the tensor it was given), so that an op can end with "
                        "return record(...)."),
    "exb1.edges_tuple": ("node.next_functions should be a tuple with one (node, 0) edge per input ({inputs} here); got "
                         "{edges}."),
    "exb1.edge_to_accumulator": ("edge {i} should lead to {name}'s AccumulateGrad (gradient_edge({name})); "
                                 "next_functions must follow the order of the inputs."),
    "exb1.edge_wrong": ("edge {i} ({name}) should be gradient_edge({name}); got ({child}, ...). next_functions must "
                        "follow the order of the inputs."),
    "exb1.out_requires_grad": "a requires grad, so a * c must too: set out.requires_grad when any input requires grad.",
    "exb1.out_grad_fn": "out.grad_fn should be the node you were given: that is how out remembers how it was made.",
    "exb1.node_shape": ("node.shape should be out's shape {shape}: backward (notebook b4) checks the gradients that "
                        "arrive at a node against it."),
    "exb1.saved_name": ("record(..., {name}=...) should keep that value as node._saved_{name} (PyTorch's naming), for "
                        "the node's backward to read."),
    "exb1.inputs_result_leaf_twice": " (inputs: a result, then the same leaf twice)",
    "exb1.nothing_recorded": ("no input of c * c requires grad, so nothing should be recorded: out.requires_grad stays "
                              "False and out.grad_fn stays None (PyTorch builds no graph for it either)."),
    "exb1.record_passed": ("out requires grad exactly when an input does, and its grad_fn has one edge per input, in "
                           "order, the node's output shape and what backward will need."),
    # -- B2: ops and their derivatives -----------------------------------------------------------------------
    "exb2.reminder.div": "d(a/b)/da = 1/b and d(a/b)/db = -a/b², each times grad.",
    "exb2.reminder.exp": "d exp(x)/dx = exp(x): the node saved it as result, no need to compute it again.",
    "exb2.reminder.log": "d log(x)/dx = 1/x.",
    "exb2.reminder.tanh": "d tanh(x)/dx = 1 - tanh(x)²: the node saved tanh(x) as result.",
    "exb2.reminder.relu": "d relu(x)/dx is 1 where x > 0 and 0 elsewhere: a mask, result > 0 (the node saved result).",
    "exb2.reminder.matmul": "for a: grad @ b.T, for b: a.T @ grad. Each gradient has the shape of its input.",
    "exb2.reminder.sum": ("each element of x adds once into its sum, so it receives that sum's gradient: put the summed "
                          "axis back (np.expand_dims, when keepdims=False), then np.broadcast_to(grad, x's shape)."),
    "exb2.with_reminder": "{label}: {message}\nReminder: {reminder}",
    "exb2.gradient_for": "{label}, gradient for {name}",
    "exb2.reminder_after": "{message}\nReminder: {reminder}",
    "exb2.div_passed": "DivBackward sends grad / b to a and -grad * a / b² to b.",
    "exb2.unary_passed": "exp, log, tanh and relu: each local derivative, times grad. exp and tanh reuse their saved result.",
    "exb2.matmul_passed": "grad @ b.T for a and a.T @ grad for b: the only products whose shapes fit.",
    "exb2.sum_passed": "the gradient of a sum is spread back over every element that was summed, for any axis.",
    # -- B3: topological order and backward ------------------------------------------------------------------
    "exb3.graph_skip": "r + (r * c).tanh() with r = p.relu()",
    "exb3.graph_chain": "a chain of {deep} tanh",
    "exb3.twice": ("For {graph}: {names} appear(s) more than once. A node reached along two paths is one node: "
                   "remember the nodes you have visited and list each once."),
    "exb3.missing": ("For {graph}: {missing} reachable node(s) missing ({names}) and {extra} that are not in the graph. "
                     "List every node reachable through next_functions, root included."),
    "exb3.too_early": ("For {graph}: {child} comes before {node}, which sends it a gradient. {child} would run before all "
                       "its gradients have arrived: every node must come after all the nodes that point to it (reverse a "
                       "depth-first post-order)."),
    "exb3.order_for": "topological_order for {graph}",
    "exb3.not_a_list": "topological_order should return a list of nodes; got {type}.",
    "exb3.order_passed": ("each node once, after all the nodes that feed it, and a chain of {deep} nodes walked without "
                          "recursion."),
    "exb3.case.two_paths": "y = (x * w + x).sum(): x is reached along two paths",
    "exb3.case.with_gradient": "y = x * w, backward(y, gradient=[1.0, -2.0])",
    "exb3.case.on_a_leaf": "x.backward(gradient=[0.5, 1.0]) on a leaf",
    "exb3.fan_in_wrong": ("For z = (h * h + h).sum() with h = (x * 2).exp(), computed once: {message}\nHint: ExpBackward "
                          "receives three gradients (two from h * h, one from + h). Add each gradient that arrives for "
                          "a node into a dict, and run the node once, when its turn in the topological order comes."),
    "exb3.fan_in_calls": ("For z = (h * h + h).sum() with h = (x * 2).exp(): ExpBackward ran {calls} times. It must run "
                          "once, with the sum of the three gradients sent to it: a node run once per path makes a deep "
                          "network's backward exponentially slow. Run the nodes in topological order, keeping the "
                          "pending gradients in a dict."),
    "exb3.scalar_other_message": ("backward(y) on a non-scalar y raised RuntimeError: {error}; use PyTorch's message, "
                                  "'{phrase}'."),
    "exb3.scalar_raised": "backward(y) on a non-scalar y raised {type}: {error}",
    "exb3.scalar_ran": ("backward(y) with y of shape (2,) and no gradient ran. Which gradient should it start from? "
                        "PyTorch refuses: raise RuntimeError('{phrase}')."),
    "exb3.hint_leaf": "Hint: a leaf has no grad_fn; start from gradient_edge(tensor), which gives its AccumulateGrad.",
    "exb3.hint_two_paths": ("Hint: x reaches y along two paths (through x * w, and directly): add the two gradients "
                            "before x's AccumulateGrad runs."),
    "exb3.backward_passed": ("each node ran once with the sum of its incoming gradients, in topological order; the "
                             "leaves' .grad match autograd_lab's."),
    # -- B4: accumulation and broadcasting -------------------------------------------------------------------
    "exb4.hint_read_only": ("Hint: the first gradient may be a read-only view (np.broadcast_to makes one): store a copy, "
                            "grad.copy(), and add to that."),
    "exb4.not_empty": ("AccumulateGrad.backward returned {returned}; return () (an empty tuple): a leaf sends no "
                       "gradient further, and backward's loop zips this with next_functions, which is ()."),
    "exb4.your_accumulate_grad": "your AccumulateGrad class",
    "exb4.first_call": "AccumulateGrad({name}).backward, first call",
    "exb4.second_call": "AccumulateGrad({name}).backward, second call",
    "exb4.still_none": ("{name}.grad is still None after AccumulateGrad({name}).backward(grad): the node's job is to put "
                        "the gradient in its leaf's .grad (self.variable.grad)."),
    "exb4.after_one": "{name}.grad after one backward",
    "exb4.aliased": ("The second backward changed the array the first one passed in (now {now}): .grad was that very "
                     "array, and += wrote into it. Other nodes may hold the same array (AddBackward sends one array to "
                     "both inputs): store grad.copy() the first time."),
    "exb4.replaced": ("{name}.grad is {got} after two backward calls: the second replaced the first. PyTorch adds each "
                      "backward's gradient into .grad (you clear it yourself between steps)."),
    "exb4.after_two": "{name}.grad after two backward calls",
    "exb4.sum_of_both": "the sum of both gradients",
    "exb4.accumulate_passed": "each backward adds into .grad, and the arrays passed in are never written to.",
    "exb4.sum_to_none": "{label} returned None: return the summed array.",
    "exb4.hint_keepdims": ("keep each axis where shape has a 1 (keepdims=True), and drop only the leading axes that "
                           "shape does not have"),
    "exb4.hint_axes_of_one": "sum over the axes where shape has a 1",
    "exb4.sum_to_shape": "{label} has shape {got}, but should have shape {shape}: {hint}.",
    "exb4.broadcast_sum": "the sum over the broadcast axes",
    "exb4.sum_to_passed": "leading axes summed away, stretched axes of size 1 summed with keepdims: every shape comes back.",
    "exb4.case.bias": "(x * w + b).sum() with x (3, 4), w (4,), b (3, 1)",
    "exb4.case.scalar": "((x * s).tanh() + w).sum() with x (2, 2), w (2,), s ()",
    "exb4.hint_broadcast_shape": ("Hint: an op broadcast its inputs, so the gradients its node returns have the "
                                  "broadcast shape; sum_to(grad, child.shape) before adding them up."),
    "exb4.hint_sum_in_loop": ("Hint: every gradient must have the shape of the tensor it belongs to: "
                              "sum_to(grad, child.shape) in backward's loop, before adding it."),
    "exb4.broadcast_passed": "broadcast inputs get their gradients summed back to their own shapes, in one place: backward.",
    # -- B5: the version counter -----------------------------------------------------------------------------
    "exb5.return_t": "commit(t, result) should return t itself (as PyTorch's in-place ops return self).",
    "exb5.new_array": ("After commit, c.data is a new array. In place means the same memory: write into it with "
                       "t.data[...] = result.data, so that every reference to that array sees the new values."),
    "exb5.c_after_commit": "c after commit(c, c + 1.0)",
    "exb5.version_step": ("c._version went from {before} to {after}; an in-place change adds exactly 1. Nodes that saved "
                          "c compare this number with the one they saw when saving it."),
    "exb5.leaf_other_message": ("commit on a leaf that requires grad raised RuntimeError: {error}; use PyTorch's message: "
                                "'{phrase}'"),
    "exb5.leaf_raised": "commit on a leaf that requires grad raised {type}: {error}",
    "exb5.leaf_changed": ("commit(w, w + 1.0) changed w, a leaf that requires grad. Refuse it, as PyTorch does, with "
                          "RuntimeError('{phrase}'): its .grad would be for values it no longer has."),
    "exb5.new_history": ("After z += x (commit(z, z + x)), z.grad_fn should be the new AddBackward (result.grad_fn): z's "
                         "values now come from the addition, so its history must end with it."),
    "exb5.requires_grad_after": ("After commit, z should require grad exactly when result does (t.requires_grad = "
                                 "result.requires_grad)."),
    "exb5.commit_passed": "same array, version + 1, the new history, and leaves that require grad refused.",
    "exb5.before_change": "saved(node, 'b') before any change",
    "exb5.not_the_array": ("saved(node, name) should return the saved tensor's array (its .data): the formulas compute "
                           "on arrays. Got {type}."),
    "exb5.setting": ("saved(node, 'axis') should return the saved setting as it is (1); got {got}. Only tensors have a "
                     "version."),
    "exb5.other_message": ("backward raised RuntimeError: {error}\nUse PyTorch's words, 'one of the variables needed "
                           "for gradient computation has been modified by an inplace operation', then say which."),
    "exb5.both_versions": ("The message should give both versions, as PyTorch's does ('... is at version 1; expected "
                           "version 0 instead.'); yours: {error}"),
    "exb5.unchecked": ("MulBackward saved c at version 0, then c.mul_(10.0) made it version 1, and backward still ran: "
                       "x.grad = {got}, computed from the new c, instead of [3.0, 4.0]. Compare node.saved_versions[name] "
                       "with the tensor's _version in saved(), and raise when they differ."),
    "exb5.after_unsaved_change": "y.backward() after changing c, which no node saved",
    "exb5.hint_unsaved": ("Hint: only the tensors a node saved matter; c went into an addition, which saves nothing, so "
                          "this backward is correct and must run."),
    "exb5.saved_passed": ("a saved tensor changed in place is refused with PyTorch's error; an unchanged one, or a "
                          "changed tensor that nobody saved, is fine."),
    # -- B6: train a network ---------------------------------------------------------------------------------
    "exb6.the_network": "The network is tanh(x @ W1 + b1) @ W2 + b2.",
    "exb6.backward_through": "backward through {what}",
    "exb6.mlp_passed": "the same outputs as autograd_lab's, and the same gradients for W1, b1, W2 and b2.",
    "exb6.loss_type": ("cross_entropy({label}, targets) returned {type}: return the loss, one of your Tensors holding a "
                       "single number, made with your engine's ops (so that backward reaches logits)."),
    "exb6.hint_mean": "Hint: the loss is the mean over the batch, not the sum.",
    "exb6.hint_overflow": ("Hint: exp of a large logit overflows. Subtract each row's maximum first (a constant: softmax "
                           "does not change when a row is shifted)."),
    "exb6.large_logits": "large logits",
    "exb6.cross_entropy_passed": "the mean negative log-likelihood, stable for large logits, with autograd_lab's gradient.",
    "exb6.hint_commit_refuses": ("Hint: a parameter is a leaf that requires grad, so commit refuses it. An optimizer "
                                 "changes the values behind autograd's back: p.data -= lr * p.grad."),
    "exb6.unchanged": "sgd_step(params, 0.1) left every parameter as it was: update p.data for each p in params.values().",
    "exb6.uphill": "Every parameter moved along its gradient, uphill: the loss would grow. Subtract lr * p.grad.",
    "exb6.after_step": "{name} after the step",
    "exb6.grad_kept": ("{name}.grad is still set after the step: the next backward would add onto it (notebook b4). Set "
                       "p.grad = None once p has been updated."),
    "exb6.sgd_passed": "every parameter moved against its gradient, and every .grad was cleared for the next batch.",
}
