"""Neural networks, as ``torch.nn``: ``Module`` and ``Parameter``, layers, losses, containers,
``nn.functional`` (``F``) and ``nn.init``.

``import autograd_lab.nn as nn`` then ``nn.Linear(2, 8)``, ``nn.Sequential(...)``, ``nn.CrossEntropyLoss()``.
"""

from __future__ import annotations

from . import functional, init, utils
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .attention import MultiheadAttention
from .channels import ChannelShuffle, LocalResponseNorm, PixelShuffle, PixelUnshuffle, Softmax2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import AdaptiveAvgPool2d, AvgPool2d, Conv1d, Conv2d, Conv3d, MaxPool2d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .distance import CosineSimilarity, PairwiseDistance
from .fold import Fold, Unfold
from .layers import (
    AlphaDropout,
    Bilinear,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    Embedding,
    EmbeddingBag,
    FeatureAlphaDropout,
    Flatten,
    Identity,
    Linear,
    Unflatten,
)
from .lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
    LazyModuleMixin,
)
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LayerNorm,
    RMSNorm,
)
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
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .parameter_containers import ParameterDict, ParameterList
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Module", "Parameter", "functional", "init", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear",
           "AlphaDropout", "FeatureAlphaDropout",
           "Flatten", "Unflatten", "Dropout", "Embedding", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "BatchNorm1d", "BatchNorm2d", "ReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax", "MSELoss",
           "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "CircularPad1d", "CircularPad2d", "CircularPad3d", "utils", "LeakyReLU", "RReLU", "Threshold", "Conv1d", "Dropout1d",
           "Dropout2d", "Dropout3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "RNNBase", "RNN",
           "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d",
           # more activations, losses and distances
           "Hardtanh", "ReLU6", "ELU", "SELU", "CELU", "SiLU", "Mish", "Softplus", "Softsign", "Tanhshrink",
           "Hardsigmoid", "Hardswish", "LogSigmoid", "GLU", "Softmin", "Hardshrink", "Softshrink", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "MarginRankingLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
           "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CosineSimilarity", "PairwiseDistance",
           # attention and transformers
           "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer",
           # more normalisation
           "GroupNorm", "RMSNorm", "PReLU", "ParameterList", "ParameterDict",
           # more convolutions and pools
           "ConvTranspose1d", "ConvTranspose2d", "Unfold", "Fold", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
           "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Softmax2d", "LocalResponseNorm",
           "Conv3d", "ConvTranspose3d", "EmbeddingBag", "BatchNorm3d",
           # pooling over volumes
           "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool3d",
           # products of three tensors
           "Bilinear", "TripletMarginWithDistanceLoss", "Buffer",
           # lazy modules
           "UninitializedParameter", "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "UninitializedBuffer",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]
