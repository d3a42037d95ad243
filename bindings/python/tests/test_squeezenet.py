"""A real torchvision CNN (squeezenet1_1, exported by tools/export_models.py;
the ctest fixture kiln_models) through Python equals `kiln run` bit for bit."""
import numpy as np

import kiln
from conftest import bits_equal, cli_run, locate_model


def test_squeezenet_bit_identical_to_kiln_run():
    path, inputs = locate_model("squeezenet1_1")
    with kiln.Model(path) as model:
        (info,) = model.inputs
        assert info.shape == (1, 3, 224, 224) and info.dtype == np.float32
        x = kiln.load_tensor(inputs[0])
        with model.session() as session:
            (got,) = session.run({info.name: x})
            assert got.shape == (1, 1000)
            (want,) = cli_run(path, [inputs[0]])
            assert bits_equal(got, want), "Python and C outputs differ"
            total = float(np.abs(got).sum())
            assert total > 0 and np.isfinite(total)
            (again,) = session.run({info.name: x})
            assert bits_equal(again, got)
            print("squeezenet1_1: 1000 logits bit-identical to kiln run (sum |x| = %.3f)" % total)
        assert model.memory_info().weight_bytes > 1_000_000
