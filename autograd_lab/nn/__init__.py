"""Neural networks, as ``torch.nn``: ``Module`` and ``Parameter``, layers, losses, containers,
``nn.functional`` (``F``) and ``nn.init``.

``import autograd_lab.nn as nn`` then ``nn.Linear(2, 8)``, ``nn.Sequential(...)``, ``nn.CrossEntropyLoss()``.
"""

from __future__ import annotations

from . import functional, init
from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import AdaptiveAvgPool2d, AvgPool2d, Conv2d, MaxPool2d
from .layers import Dropout, Embedding, Flatten, Identity, Linear, Unflatten
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .parameter import Parameter

__all__ = ["Module", "Parameter", "functional", "init", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear",
           "Flatten", "Unflatten", "Dropout", "Embedding", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "BatchNorm1d", "BatchNorm2d", "ReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax", "MSELoss",
           "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "CircularPad1d", "CircularPad2d", "CircularPad3d"]
