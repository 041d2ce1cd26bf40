"""The models of the peers benchmark: real architectures from torchvision and
torch.nn with random weights (batch norms calibrated), exported to ONNX with
Debian's PyTorch 1.13 (opset 17). Nothing is downloaded.

    models.py export NAME DIR    writes DIR/model.onnx, DIR/input_I.npy and
                                 PyTorch's output DIR/expected_0.npy
    models.py list               prints the model names

The four reference models of bench/model_latency.py come from the e2e tests'
torch_models.py; the others are defined here. `gemm_MxNxK` is one f32 matmul
of two inputs, A (MxK) and B (KxN), for the GEMM table.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "onnx", "Inputs"))
import torch_models  # noqa: E402

# name -> what it covers (the list), in the order of the tables.
MODELS = {
    "resnet18": "basic-block ResNet",
    "mobilenet_v2": "depthwise separable convolutions",
    "transformer_encoder_layer": "one post-norm encoder layer (seq 128)",
    "mlp": "three linear layers, batch 64",
    "resnet50": "bottleneck ResNet",
    "resnext50_32x4d": "grouped convolutions (32 groups)",
    "regnet_x_400mf": "grouped convolutions (group width 16)",
    "mobilenet_v3_large": "squeeze-excite and hard-swish",
    "vit_b_32": "vision transformer (ViT-B/32, 224x224)",
    "bert_small": "BERT-style encoder: token and position embeddings, "
                  "4 layers, hidden 512, seq 128",
    "lstm": "2-layer LSTM tagger (seq 100, hidden 256)",
}


def _bert_small():
    import torch

    class BertSmall(torch.nn.Module):
        """The BERT-Small shape (L=4, H=512, A=8): token, position and
        segment embeddings, their layer norm, and a post-norm GELU encoder."""

        def __init__(self, vocab=30522, hidden=512, layers=4, heads=8,
                     seq=128):
            super().__init__()
            self.tokens = torch.nn.Embedding(vocab, hidden)
            self.positions = torch.nn.Embedding(seq, hidden)
            self.segments = torch.nn.Embedding(2, hidden)
            self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)
            layer = torch.nn.TransformerEncoderLayer(
                hidden, heads, 4 * hidden, dropout=0.0, activation="gelu",
                batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, layers,
                                                       enable_nested_tensor=False)
            # TransformerEncoder deep-copies one layer: every layer would
            # have the same weights, which the exporter then shares between
            # them (read through Identity nodes, which ONNX Runtime's
            # quantizer does not quantize). A trained model's layers differ.
            for copy in self.encoder.layers:
                for module in copy.modules():
                    if isinstance(module, torch.nn.Linear):
                        module.reset_parameters()
                    elif isinstance(module, torch.nn.MultiheadAttention):
                        module._reset_parameters()
            self.register_buffer("position_ids", torch.arange(seq)[None, :])

        def forward(self, ids):
            x = (self.tokens(ids) + self.positions(self.position_ids) +
                 self.segments(torch.zeros_like(ids)))
            return self.encoder(self.norm(x))

    return BertSmall(), (1, 128)


def _lstm():
    import torch

    class Tagger(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(128, 256, num_layers=2)
            self.head = torch.nn.Linear(256, 32)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.head(y)

    return Tagger(), (100, 1, 128)


def _gemm(name):
    import torch

    class MatMul(torch.nn.Module):
        def forward(self, a, b):
            return torch.matmul(a, b)

    m, n, k = (int(v) for v in name[len("gemm_"):].split("x"))
    return MatMul(), [(m, k), (k, n)]


def build(name):
    """(module, input shape, input dtype) of model NAME, seeded; a GEMM has
    a list of input shapes."""
    import torch

    torch.manual_seed(0)
    if name.startswith("gemm_"):
        model, shapes = _gemm(name)
        return model, shapes, "float32"
    if name in torch_models.MODELS:
        model, shape = torch_models.build(name)
        return model, shape, "float32"
    if name in ("resnet50", "resnext50_32x4d", "regnet_x_400mf",
                "mobilenet_v3_large", "vit_b_32"):
        import torchvision

        model = getattr(torchvision.models, name)(weights=None)
        if name == "vit_b_32":
            # torchvision zeroes the classification head, which would make
            # every output 0 and the comparison meaningless.
            torch.nn.init.normal_(model.heads.head.weight, std=0.02)
        if name == "mobilenet_v3_large":
            # Its classifier's N(0, 0.01) weights leave outputs below 1e-3,
            # too small for the comparison's absolute tolerance.
            for layer in model.classifier:
                if isinstance(layer, torch.nn.Linear):
                    layer.reset_parameters()
        return model, (1, 3, 224, 224), "float32"
    if name == "bert_small":
        model, shape = _bert_small()
        return model, shape, "int64"
    if name == "lstm":
        model, shape = _lstm()
        return model, shape, "float32"
    sys.exit("unknown model " + name)


def export(name, out_dir):
    import torch

    model, shape, dtype = build(name)
    shapes = shape if isinstance(shape, list) else [shape]
    torch_models.calibrate_batch_norm(model, shapes[0])
    model.eval()
    torch.manual_seed(1)
    if dtype == "int64":
        xs = [torch.randint(0, 30522, s, dtype=torch.int64) for s in shapes]
    else:
        xs = [torch.randn(*s) for s in shapes]
    os.makedirs(out_dir, exist_ok=True)
    with torch.no_grad():
        expected = model(*xs)
    scale = float(expected.abs().max())
    if scale < 1e-2:
        sys.exit("%s: degenerate reference (largest output magnitude %g): a "
                 "comparison against it would prove nothing" % (name, scale))
    # Exported with autograd enabled: under no_grad PyTorch 1.13 routes
    # batch-first attention through fused kernels that have no ONNX form.
    names = ["input"] if len(xs) == 1 else [
        "input_%d" % i for i in range(len(xs))]
    torch.onnx.export(model, tuple(xs), os.path.join(out_dir, "model.onnx"),
                      opset_version=17, input_names=names,
                      output_names=["output"])
    for i, x in enumerate(xs):
        np.save(os.path.join(out_dir, "input_%d.npy" % i), x.numpy())
    np.save(os.path.join(out_dir, "expected_0.npy"), expected.numpy())
    with open(os.path.join(out_dir, "name"), "w") as f:
        f.write(name + "\n")
    # The PyTorch peers load these weights (and calibrated statistics), so
    # that a PyTorch 2.x peer runs the same model as the reference.
    torch.save(model.state_dict(), os.path.join(out_dir, "state.pt"))


def main():
    if sys.argv[1:2] == ["export"] and len(sys.argv) == 4:
        export(sys.argv[2], sys.argv[3])
    elif sys.argv[1:] == ["list"]:
        print("\n".join(MODELS))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
