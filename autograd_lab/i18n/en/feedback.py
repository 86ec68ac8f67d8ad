"""What every checker shares (``course/_feedback.py``) and the build track's helpers (``course/_build.py``)."""

MESSAGES = {
    "list.separator": ", ",
    # -- a checker's result, as the notebook shows it ----------------------------------------------------
    "feedback.correct": "Correct!",
    "feedback.not_yet": "Not yet.",
    "feedback.shown": "{mark} {message}",
    "feedback.replace_placeholder": "Replace the `...` with {what}, then run the cell again.",
    "feedback.replace_value": "Replace the `...` with {name}, then run the cell again.",
    "feedback.your_function": "your function",
    "feedback.your_named_function": "your {name} function",
    "feedback.backward_raised": "backward raised {type}: {error}",
    "feedback.n_wrong": "{wrong} of {total} wrong:",
    "feedback.not_callable": "{what} should be a function; got {type}.",
    "feedback.raised": "{what} raised {type}: {error}",
    # -- answers given as a dict of choices (notebooks 02, 16) --------------------------------------------
    "feedback.no_answer_yet": "  {key}: no answer yet",
    "feedback.not_one_of": "  {key}: {given} is not one of {choices}",
    "feedback.not_this": "  {key}: not {given}. Hint: {hint}",
    "feedback.another_look": "{wrong} of {total} answers need another look:",
    "feedback.graph_shared_h": "(h * h + h).sum() with h = (x * w).exp()",
    # -- compare_arrays ------------------------------------------------------------------------------------
    "feedback.expected_values": "the expected values",
    "feedback.not_numbers": "{name} should be numbers (a tensor, an array or a number); got {type}: {error}",
    "feedback.shape": "{name} has shape {got} but should have shape {expected}.",
    "feedback.not_finite": "{name} has non-finite values (nan or inf) at {where}.",
    "feedback.the_value": "(the value)",
    "feedback.and_more": " and {count} more",
    "feedback.matches": "{name} matches {reference}.",
    "feedback.differ": "{name}: {wrong} of {size} element(s) differ from {reference}:",
    "feedback.element": "  {name}{where}: yours {got}, expected {expected}",
    "feedback.more_elements": "  ... and {count} more",
    "feedback.hint_sign": "Hint: every value has the wrong sign.",
    "feedback.hint_factor": "Hint: every value is {factor} times the expected one (a missing or extra factor?).",
    "feedback.hint_transpose": "Hint: your answer is the transpose of the expected one.",
    # -- the build track's shared checks (course/_build.py) ------------------------------------------------
    "build.a_value_of_type": "a {type}",
    "build.your_tensor_class": "your Tensor class",
    "build.not_a_class": "the second argument should be your Tensor class; got {type}.",
    "build.hint_saved_name": ("Hint: a node has only what its op function passed to record(..., name=value); read it "
                              "with saved(self, 'name'), using that name."),
    "build.hint_recursion": ("Hint: Python stops at about 1000 nested calls. Walk the graph with a list used as a "
                             "stack (append and pop) instead of a function that calls itself."),
    "build.no_grad_fn": "{label} has no grad_fn, although its input requires grad: it was not recorded.",
    "build.backward_none": ("{node}.backward returned None: return one gradient per input, as a tuple "
                            "({inputs} here)."),
    "build.backward_not_tuple": ("{node}.backward returned a {type}, not a tuple: with one input, write "
                                 "return (grad_x,) with the comma."),
    "build.backward_count": ("{node}.backward returned {grads} gradient(s) but the node has {inputs} input(s): one "
                             "gradient per input, in the order of next_functions."),
    "build.grad_none": "{name} is None, but autograd_lab gives {expected}: no gradient reached it.",
    "build.hint_upstream": ("Hint: multiply by grad, the gradient that arrives from above (the chain rule): your "
                            "values are the local derivative alone."),
}
