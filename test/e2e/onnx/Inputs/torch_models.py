"""Real models for the ONNX end-to-end tests, exported with PyTorch at test
time (random weights, fixed seed; nothing is downloaded).

    torch_models.py export NAME DIR   writes DIR/model.onnx, DIR/input_0.npy
                                      and PyTorch's output DIR/expected_0.npy
    torch_models.py compare DIR OUT   compares OUT/output_0.npy with
                                      DIR/expected_0.npy (rtol 1e-3, atol 1e-4)
    torch_models.py export-dynamic NAME DIR N,N...
                                      exports with a dynamic batch
                                      (dynamic_axes, as most export scripts
                                      do) and writes DIR/bN/input_0.npy and
                                      DIR/bN/expected_0.npy for each size N;
                                      a model of token ids also has a
                                      dynamic sequence length: sizes BxS,
                                      written to DIR/bBsS
    torch_models.py list              prints the model names
"""
import os
import sys

import numpy as np


def build(name):
    import torch

    torch.manual_seed(0)
    if name == "resnet18":
        import torchvision

        return torchvision.models.resnet18(weights=None), (1, 3, 224, 224)
    if name == "mobilenet_v2":
        import torchvision

        return torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224)
    if name == "transformer_encoder_layer":
        return torch.nn.TransformerEncoderLayer(512, 8, 2048), (128, 1, 512)
    if name == "mlp":
        return torch.nn.Sequential(
            torch.nn.Linear(784, 1024), torch.nn.ReLU(),
            torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
            torch.nn.Linear(1024, 10)), (64, 784)
    if name == "small_cnn":
        # A ResNet-style block with batch norm, a residual add and pooling.
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
                self.bn = torch.nn.BatchNorm2d(16)
                self.conv1 = torch.nn.Conv2d(16, 16, 3, padding=1, bias=False)
                self.conv2 = torch.nn.Conv2d(16, 16, 3, padding=1, bias=False)
                self.pool = torch.nn.AdaptiveAvgPool2d(1)
                self.fc = torch.nn.Linear(16, 10)

            def forward(self, x):
                x = torch.relu(self.bn(self.stem(x)))
                y = torch.relu(self.conv1(x))
                x = torch.relu(x + self.conv2(y))
                return self.fc(torch.flatten(self.pool(x), 1))

        return Block(), (2, 3, 32, 32)
    if name == "grouped_cnn":
        # ResNeXt and RegNetX blocks (1x1, grouped 3x3, 1x1, batch norms,
        # projection shortcuts) with 4, 8, 16 and 32 channels per group,
        # strides 1 and 2, on 32x32 down to 8x8 maps: the grouped
        # convolutions of resnext50_32x4d and regnet_x_400mf, smaller.
        class Bottleneck(torch.nn.Module):
            def __init__(self, inputs, width, outputs, group_width, stride):
                super().__init__()
                bn = torch.nn.BatchNorm2d
                self.branch = torch.nn.Sequential(
                    torch.nn.Conv2d(inputs, width, 1, bias=False), bn(width),
                    torch.nn.ReLU(),
                    torch.nn.Conv2d(width, width, 3, stride=stride, padding=1,
                                    groups=width // group_width, bias=False),
                    bn(width), torch.nn.ReLU(),
                    torch.nn.Conv2d(width, outputs, 1, bias=False),
                    bn(outputs))
                self.shortcut = torch.nn.Sequential(
                    torch.nn.Conv2d(inputs, outputs, 1, stride=stride,
                                    bias=False), bn(outputs))

            def forward(self, x):
                return torch.relu(self.branch(x) + self.shortcut(x))

        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False),
            torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
            Bottleneck(32, 128, 64, 4, 1),
            Bottleneck(64, 128, 128, 8, 2),
            Bottleneck(128, 160, 160, 16, 2),
            Bottleneck(160, 160, 160, 32, 1),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
            torch.nn.Linear(160, 10)), (1, 3, 64, 64)
    if name == "bert_tiny":
        # A BERT-style encoder: token, position and segment embeddings, their
        # layer norm and two post-norm GELU layers; the positions are sliced
        # to the sequence's length, so the sequence length may vary.
        class Bert(torch.nn.Module):
            def __init__(self, vocab=1000, hidden=64, layers=2, heads=4,
                         positions=64):
                super().__init__()
                self.tokens = torch.nn.Embedding(vocab, hidden)
                self.positions = torch.nn.Embedding(positions, hidden)
                self.segments = torch.nn.Embedding(2, hidden)
                self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)
                layer = torch.nn.TransformerEncoderLayer(
                    hidden, heads, 4 * hidden, dropout=0.0,
                    activation="gelu", batch_first=True)
                self.encoder = torch.nn.TransformerEncoder(
                    layer, layers, enable_nested_tensor=False)
                self.register_buffer("position_ids",
                                     torch.arange(positions)[None, :])

            def forward(self, ids):
                positions = self.position_ids[:, :ids.shape[1]]
                x = (self.tokens(ids) + self.positions(positions) +
                     self.segments(torch.zeros_like(ids)))
                return self.encoder(self.norm(x))

        return Bert(), torch.randint(0, 1000, (2, 16))
    if name == "lstm_tagger":
        # A sequence tagger: token embeddings, a 2-layer LSTM, a linear
        # layer per step; 40 tokens of a 1000-word vocabulary.
        class Tagger(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embedding = torch.nn.Embedding(1000, 64)
                self.lstm = torch.nn.LSTM(64, 128, num_layers=2)
                self.classifier = torch.nn.Linear(128, 17)

            def forward(self, tokens):
                states, _ = self.lstm(self.embedding(tokens))
                return self.classifier(states)

        return Tagger(), torch.randint(0, 1000, (40, 1))
    if name == "gru_classifier":
        # A bidirectional GRU over batch-first sequences, classified from
        # the final states of both directions.
        class Classifier(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = torch.nn.GRU(32, 64, batch_first=True,
                                        bidirectional=True)
                self.classifier = torch.nn.Linear(128, 5)

            def forward(self, x):
                _, final = self.gru(x)
                return self.classifier(
                    torch.cat([final[0], final[1]], dim=1))

        return Classifier(), (4, 30, 32)
    if name == "transformer_encoder":
        # nn.TransformerEncoder (2 batch-first layers). In eval mode under
        # torch.no_grad(), PyTorch 1.13 runs it through a fused kernel
        # (aten::_transformer_encoder_layer_fwd) that has no ONNX form;
        # export() exports with autograd enabled, as docs/UserGuide.md
        # tells users to.
        layer = torch.nn.TransformerEncoderLayer(128, 4, 256,
                                                 batch_first=True)
        return torch.nn.TransformerEncoder(layer, 2), (2, 24, 128)
    if name == "patch_embed":
        # Convolutions whose windows do not overlap (stride = kernel), as
        # vision transformers embed patches: 8x8 patches of a 36x36 image
        # (the last 4 rows and columns belong to no patch), then 2x3
        # patches of those; batch 2.
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 64, 8, stride=8), torch.nn.GELU(),
            torch.nn.Conv2d(64, 32, (2, 3), stride=(2, 3))), (2, 3, 36, 36)
    if name == "lraspp":
        # LR-ASPP MobileNetV3-Large: a segmentation head that resizes its
        # features bilinearly before 1x1 convolutions, over a backbone with
        # dilated depthwise convolutions and squeeze-excite blocks.
        import torchvision

        class Segmentation(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = \
                    torchvision.models.segmentation.lraspp_mobilenet_v3_large(
                        weights=None, weights_backbone=None)

            def forward(self, x):
                return self.model(x)["out"]

        return Segmentation(), (1, 3, 128, 128)
    if name == "r3d_18":
        # ResNet3D-18 (video classification): 3-D convolutions throughout,
        # a (3, 7, 7) stem with strides (1, 2, 2), a global average pool.
        import torchvision

        return (torchvision.models.video.r3d_18(weights=None),
                (1, 3, 8, 112, 112))
    if name == "r3d_small":
        # The parts of ResNet3D, smaller, with the 3-D poolings too: a
        # (3, 7, 7) stem with strides (1, 2, 2), a 3-D max pool, residual
        # blocks of 3x3x3 convolutions with batch norms, a strided block
        # with a 1x1x1 projection, a 3-D average pool and a global one, on a
        # batch of 2.
        class Block(torch.nn.Module):
            def __init__(self, inputs, outputs, stride):
                super().__init__()
                nn = torch.nn
                self.conv1 = nn.Conv3d(inputs, outputs, 3, stride=stride,
                                       padding=1, bias=False)
                self.bn1 = nn.BatchNorm3d(outputs)
                self.conv2 = nn.Conv3d(outputs, outputs, 3, padding=1,
                                       bias=False)
                self.bn2 = nn.BatchNorm3d(outputs)
                self.down = None
                if stride != 1 or inputs != outputs:
                    self.down = nn.Sequential(
                        nn.Conv3d(inputs, outputs, 1, stride=stride,
                                  bias=False), nn.BatchNorm3d(outputs))

            def forward(self, x):
                y = torch.relu(self.bn1(self.conv1(x)))
                y = self.bn2(self.conv2(y))
                return torch.relu(y + (x if self.down is None
                                       else self.down(x)))

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                nn = torch.nn
                self.stem = nn.Sequential(
                    nn.Conv3d(3, 16, (3, 7, 7), stride=(1, 2, 2),
                              padding=(1, 3, 3), bias=False),
                    nn.BatchNorm3d(16), nn.ReLU())
                self.pool = nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2),
                                         padding=(0, 1, 1))
                self.layer1 = Block(16, 16, 1)
                self.layer2 = Block(16, 32, 2)
                self.avg = nn.AvgPool3d(2, stride=1)
                self.head = nn.AdaptiveAvgPool3d(1)
                self.fc = nn.Linear(32, 10)

            def forward(self, x):
                x = self.pool(self.stem(x))
                x = self.avg(self.layer2(self.layer1(x)))
                return self.fc(torch.flatten(self.head(x), 1))

        return Net(), (2, 3, 4, 28, 28)
    sys.exit("unknown model " + name)


MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder_layer", "mlp",
          "small_cnn", "grouped_cnn", "lraspp", "lstm_tagger",
          "gru_classifier", "transformer_encoder", "r3d_18", "r3d_small",
          "patch_embed", "bert_tiny"]


def calibrate_batch_norm(model, shape):
    """Gives the batch norms running statistics from random batches, as
    training would. With the initial statistics (mean 0, variance 1) the
    activations of a randomly initialised MobileNetV2 shrink layer by layer
    to ~1e-9, and a comparison against them would prove nothing."""
    import torch

    if not any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
               for m in model.modules()):
        return
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(max(shape[0], 4), *shape[1:]))


def prepare(name):
    """The model in eval mode (batch norms calibrated) and its input."""
    import torch

    model, example = build(name)
    if isinstance(example, tuple):  # a shape: random normal input
        calibrate_batch_norm(model, example)
        torch.manual_seed(1)
        x = torch.randn(*example)
    else:  # the input itself (token ids)
        x = example
    model.eval()
    return model, x


def export(name, out_dir):
    import torch

    model, x = prepare(name)
    os.makedirs(out_dir, exist_ok=True)
    with torch.no_grad():
        expected = model(x)
    # Exported with autograd enabled: under torch.no_grad(), PyTorch 1.13
    # runs nn.TransformerEncoder and nn.MultiheadAttention in eval mode
    # through fused kernels that have no ONNX form.
    torch.onnx.export(model, x, os.path.join(out_dir, "model.onnx"),
                      opset_version=17, input_names=["input"],
                      output_names=["output"])
    np.save(os.path.join(out_dir, "input_0.npy"), x.numpy())
    np.save(os.path.join(out_dir, "expected_0.npy"), expected.numpy())


def export_dynamic(name, out_dir, sizes):
    import torch

    model, x = prepare(name)
    os.makedirs(out_dir, exist_ok=True)
    tokens = not x.is_floating_point()
    axes = {0: "batch", 1: "seq"} if tokens else {0: "batch"}
    torch.onnx.export(model, x, os.path.join(out_dir, "model.onnx"),
                      opset_version=17, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": axes, "output": axes})
    generator = torch.Generator().manual_seed(1)
    for size in sizes:
        if tokens:
            batch_size, seq = (int(n) for n in size.split("x"))
            batch = torch.randint(0, 1000, (batch_size, seq),
                                  generator=generator)
            size_dir = os.path.join(out_dir, "b%ds%d" % (batch_size, seq))
        else:
            batch = torch.randn((int(size),) + tuple(x.shape[1:]),
                                generator=generator)
            size_dir = os.path.join(out_dir, "b%s" % size)
        with torch.no_grad():
            expected = model(batch)
        os.makedirs(size_dir, exist_ok=True)
        np.save(os.path.join(size_dir, "input_0.npy"), batch.numpy())
        np.save(os.path.join(size_dir, "expected_0.npy"), expected.numpy())


def compare(model_dir, out_dir, quiet=False):
    expected = np.load(os.path.join(model_dir, "expected_0.npy"))
    got = np.load(os.path.join(out_dir, "output_0.npy"))
    if got.shape != expected.shape or got.dtype != expected.dtype:
        sys.exit("mismatch: got %s %s, expected %s %s" %
                 (got.dtype, got.shape, expected.dtype, expected.shape))
    scale = float(np.abs(expected).max()) if expected.size else 0.0
    if scale < 1e-2:
        sys.exit("degenerate reference: the largest expected magnitude is "
                 "%g, too small for atol 1e-4 to mean anything" % scale)
    error = np.abs(got.astype(np.float64) - expected)
    bound = 1e-4 + 1e-3 * np.abs(expected)
    worst = np.unravel_index(np.argmax(error - bound), error.shape)
    if not np.all(error <= bound):
        sys.exit("mismatch: %d of %d elements outside rtol 1e-3/atol 1e-4; "
                 "worst at %s: got %g, expected %g" %
                 (np.count_nonzero(error > bound), error.size, list(worst),
                  got[worst], expected[worst]))
    if not quiet:
        print("match: %d elements within rtol 1e-3/atol 1e-4 "
              "(max abs error %.3g)" % (error.size, error.max()))


def main():
    command = sys.argv[1]
    if command == "export":
        export(sys.argv[2], sys.argv[3])
    elif command == "export-dynamic":
        export_dynamic(sys.argv[2], sys.argv[3], sys.argv[4].split(","))
    elif command == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif command == "list":
        print("\n".join(MODELS))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
