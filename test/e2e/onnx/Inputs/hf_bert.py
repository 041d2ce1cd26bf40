"""A BERT encoder written as Hugging Face's BertModel is (token, position
and token-type embeddings; attention heads split with view/permute from the
input's size; an additive attention mask built from `attention_mask`; a
pooler over the first token), exported with a dynamic batch and sequence
length on all three inputs, as Hugging Face's exporters do.

    hf_bert.py export DIR OPSET   writes DIR/model.onnx (opset 14 writes
                                  layer norms as ReduceMean chains, 17 as
                                  LayerNormalization) and, per size BxS in
                                  1x1, 2x9, 3x32, DIR/bBsS/{input_ids,
                                  attention_mask,token_type_ids}.npy and
                                  PyTorch's outputs expected_{0,1}.npy
    hf_bert.py compare DIR OUT    compares OUT/output_{0,1}.npy with them
"""
import math
import os
import sys

import numpy as np

SIZES = [(1, 1), (2, 9), (3, 32)]
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def build():
    import torch

    hidden, heads, layers, vocab, positions, inner = 64, 4, 2, 1000, 64, 128

    class Embeddings(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.word = torch.nn.Embedding(vocab, hidden)
            self.position = torch.nn.Embedding(positions, hidden)
            self.token_type = torch.nn.Embedding(2, hidden)
            self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)
            self.register_buffer("position_ids",
                                 torch.arange(positions).expand((1, -1)))

        def forward(self, ids, token_types):
            position_ids = self.position_ids[:, 0:ids.size(1)]
            return self.norm(self.word(ids) + self.token_type(token_types) +
                             self.position(position_ids))

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.query = torch.nn.Linear(hidden, hidden)
            self.key = torch.nn.Linear(hidden, hidden)
            self.value = torch.nn.Linear(hidden, hidden)
            self.output = torch.nn.Linear(hidden, hidden)
            self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)

        def heads(self, x):
            shape = x.size()[:-1] + (heads, hidden // heads)
            return x.view(shape).permute(0, 2, 1, 3)

        def forward(self, x, mask):
            q = self.heads(self.query(x))
            k = self.heads(self.key(x))
            v = self.heads(self.value(x))
            scores = torch.matmul(q, k.transpose(-1, -2))
            scores = scores / math.sqrt(hidden // heads) + mask
            probs = torch.nn.functional.softmax(scores, dim=-1)
            context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
            context = context.view(context.size()[:-2] + (hidden,))
            return self.norm(self.output(context) + x)

    class Layer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = Attention()
            self.intermediate = torch.nn.Linear(hidden, inner)
            self.output = torch.nn.Linear(inner, hidden)
            self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)

        def forward(self, x, mask):
            a = self.attention(x, mask)
            h = torch.nn.functional.gelu(self.intermediate(a))
            return self.norm(self.output(h) + a)

    class Bert(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            self.layers = torch.nn.ModuleList([Layer() for _ in range(layers)])
            self.pooler = torch.nn.Linear(hidden, hidden)

        def forward(self, ids, attention_mask, token_types):
            mask = attention_mask[:, None, None, :].to(torch.float32)
            mask = (1.0 - mask) * -10000.0
            x = self.embeddings(ids, token_types)
            for layer in self.layers:
                x = layer(x, mask)
            return x, torch.tanh(self.pooler(x[:, 0]))

    torch.manual_seed(0)
    return Bert().eval()


def export(out_dir, opset):
    import torch

    model = build()
    os.makedirs(out_dir, exist_ok=True)
    example = (torch.randint(0, 1000, (2, 16)),
               torch.ones(2, 16, dtype=torch.int64),
               torch.zeros(2, 16, dtype=torch.int64))
    axes = {0: "batch", 1: "seq"}
    torch.onnx.export(
        model, example, os.path.join(out_dir, "model.onnx"),
        opset_version=opset, input_names=INPUTS,
        output_names=["last_hidden_state", "pooler_output"],
        dynamic_axes={"input_ids": axes, "attention_mask": axes,
                      "token_type_ids": axes, "last_hidden_state": axes,
                      "pooler_output": {0: "batch"}})
    generator = torch.Generator().manual_seed(1)
    for batch, seq in SIZES:
        ids = torch.randint(0, 1000, (batch, seq), generator=generator)
        mask = (torch.rand(batch, seq, generator=generator) > 0.3).long()
        mask[:, 0] = 1
        types = (torch.rand(batch, seq, generator=generator) > 0.5).long()
        with torch.no_grad():
            outputs = model(ids, mask, types)
        size_dir = os.path.join(out_dir, "b%ds%d" % (batch, seq))
        os.makedirs(size_dir, exist_ok=True)
        for name, value in zip(INPUTS, (ids, mask, types)):
            np.save(os.path.join(size_dir, name + ".npy"), value.numpy())
        for i, value in enumerate(outputs):
            np.save(os.path.join(size_dir, "expected_%d.npy" % i),
                    value.numpy())


def compare(size_dir, out_dir):
    for i in range(2):
        expected = np.load(os.path.join(size_dir, "expected_%d.npy" % i))
        got = np.load(os.path.join(out_dir, "output_%d.npy" % i))
        if got.shape != expected.shape:
            sys.exit("output %d: shape %s, expected %s" %
                     (i, got.shape, expected.shape))
        error = np.abs(got.astype(np.float64) - expected)
        if not np.all(error <= 1e-4 + 1e-3 * np.abs(expected)):
            sys.exit("output %d: max abs error %g" % (i, error.max()))
        print("output %d: match %s" % (i, list(got.shape)))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command " + sys.argv[1])
