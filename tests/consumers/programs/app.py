"""The Python consumer (tests/consumers/run_consumer.sh python): run in a
virtual environment outside the repository with the kiln wheel installed;
prints "FILE CLASS" for every *.pb digit sample in SAMPLES_DIR, in name order.
    usage: python app.py MODEL SAMPLES_DIR"""
import pathlib
import sys

import kiln

model_path, samples = sys.argv[1], pathlib.Path(sys.argv[2])
session = kiln.Model(model_path).session()
for sample in sorted(samples.glob("*.pb")):
    image = kiln.load_tensor(str(sample))
    (logits,) = session.run({"image": image})
    print(sample.name, int(logits.argmax()))
