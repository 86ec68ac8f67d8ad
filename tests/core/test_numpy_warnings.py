"""PyTorch is silent where IEEE arithmetic gives inf or nan; so are our ops (NumPy would warn)."""

import re
import warnings

import numpy as np
import pytest

import autograd_lab as al


@pytest.mark.parametrize("expr, expected", [
    ("al.tensor([0.0, -1.0]).log()", [-np.inf, np.nan]),
    ("al.tensor([1000.0]).exp()", [np.inf]),
    ("al.tensor([0.0, 1.0]) / 0", [np.nan, np.inf]),
    ("al.tensor([0.0]).rsqrt()", [np.inf]),
    ("al.tensor([-1.0]).sqrt()", [np.nan]),
])
def test_ops_giving_inf_or_nan_do_not_warn(expr, expected):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as caught:
        warnings.filterwarnings("always", append=True)  # (after autograd_lab's filter, before nothing else)
        out = eval(expr, {"al": al})  # noqa: S307  (the cases above)
        theirs = eval(expr.replace("al.", "torch."), {"torch": torch})  # noqa: S307
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in caught]
    assert np.array_equal(out.numpy(), np.array(expected), equal_nan=True)
    assert np.array_equal(out.numpy(), theirs.numpy(), equal_nan=True)


@pytest.mark.parametrize("expr", [
    "al.zeros(0).mean()", "al.zeros(0, 3).mean(0)", "al.zeros(3, 0).mean(1)", "al.tensor([1.0]).var()",
    "al.tensor([1.0]).std()", "al.tensor([[1.0, 2.0]]).var(0)", "al.tensor([1.0, 2.0]).var(correction=2)",
    "al.zeros(0).var()", "al.zeros(0, 3).var(1)", "al.zeros(0, 2).std(0)", "al.tensor([1e300], dtype=al.float32)",
    "al.tensor([1e300], dtype=al.float64).float()", "al.tensor([float('nan')]).long()", "al.tensor([5.0]) // 0",
    "al.tensor([5.0]) % 0", "al.tensor([5]) / 0", "al.zeros(0, 3).sum(0)", "al.zeros(0).prod()",
    "al.nn.functional.mse_loss(al.zeros(0), al.zeros(0))", "al.nn.functional.l1_loss(al.zeros(0, 2), al.zeros(0, 2))",
])
def test_numpy_warnings_never_reach_the_user_and_pytorch_own_warnings_do(expr):
    """Degenerate reductions (empty, or no degree of freedom left) give PyTorch's values; where PyTorch warns
    (var and std: "degrees of freedom is <= 0") we give its UserWarning, once per call, and NumPy's
    RuntimeWarnings ("Mean of empty slice", "Degrees of freedom <= 0 for slice") never show."""
    torch = pytest.importorskip("torch")
    caught = {}
    for name, module in (("al", al), ("torch", torch)):
        with warnings.catch_warnings(record=True) as got:
            warnings.filterwarnings("always", append=True)
            out = eval(re.sub(r"\bal\.", f"{name}.", expr), {name: module})  # noqa: S307  (the cases above)
        caught[name] = (out, [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in got])
    (ours, our_warnings), (theirs, their_warnings) = caught["al"], caught["torch"]
    assert not [w for w in our_warnings if w[0] is RuntimeWarning], our_warnings
    assert our_warnings == their_warnings
    assert np.array_equal(ours.numpy(), theirs.numpy(), equal_nan=True)


def test_a_backward_through_inf_does_not_warn_and_anomaly_mode_still_reports_nan():
    x = al.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.filterwarnings("always", append=True)
        x.sqrt().sum().backward()  # d sqrt(x) at 0: 1 / (2 * 0) = inf
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert x.grad.tolist() == [np.inf, 0.5]
    y = al.tensor([0.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="returned nan values"), al.autograd.detect_anomaly():
        (y.sqrt() * 0.0).sum().backward()  # inf * 0 = nan


def test_numpy_code_of_the_user_keeps_its_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.filterwarnings("always", append=True)
        np.log(np.zeros(1))
    assert any("divide by zero" in str(w.message) for w in caught)


def test_a_plain_import_sets_the_filter():
    """Outside pytest (a script, a notebook) the import alone does it: run in a fresh interpreter that
    shows every warning (-W always would override any filter, so the default filters are kept)."""
    import subprocess
    import sys
    code = ("import numpy as np, autograd_lab as al; al.tensor([0.0]).log(); (al.tensor([0.0], requires_grad=True)"
            ".sqrt().sum().backward()); np.log(np.zeros(1))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(lines) == 1 and "<string>" in lines[0], done.stderr  # only the user's own np.log(0)
