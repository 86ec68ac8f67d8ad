"""Train the pretrained ``small_cnn`` that ships with autograd_lab, with autograd_lab itself.

    .venv/bin/python scripts/train_pretrained.py            # writes autograd_lab/models/weights/small_cnn_digits.npz
    .venv/bin/python scripts/train_pretrained.py --out /tmp/w.npz --seed 1

The file is written with ``al.save`` (a NumPy ``.npz``, no pickle): ``{"state_dict": ..., "meta": ...}``,
``meta`` holding the seed, the recipe and the accuracy on the held-out digits. Same seed, same weights
(on the same machine: BLAS rounding may differ elsewhere). It takes about half a minute.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import autograd_lab as al  # noqa: E402
from autograd_lab.models._train import RECIPE, train_small_cnn  # noqa: E402
from autograd_lab.models.cnn import WEIGHTS_FILE  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seeds the initial weights and the batch order")
    parser.add_argument("--epochs", type=int, default=RECIPE["epochs"])
    parser.add_argument("--out", type=Path, default=ROOT / "autograd_lab" / "models" / WEIGHTS_FILE)
    args = parser.parse_args(argv)

    def log(epoch: int, loss: float, test_accuracy: float) -> None:
        print(f"epoch {epoch + 1:2d}/{args.epochs}  last batch loss {loss:.4f}  held-out accuracy {test_accuracy:.4f}")

    model, meta = train_small_cnn(seed=args.seed, epochs=args.epochs, log=log)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    al.save({"state_dict": model.state_dict(), "meta": meta}, args.out)
    size_kb = args.out.stat().st_size / 1024
    print(f"wrote {args.out} ({size_kb:.0f} KB): held-out accuracy {meta['test_accuracy']:.4f}, "
          f"train accuracy {meta['train_accuracy']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
