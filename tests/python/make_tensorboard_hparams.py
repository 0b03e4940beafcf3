"""Writes TensorBoard runs with hparams as other trainers do, for the Runs table's reader
(tests/base/follow/RunRecordTensorBoardTest.cpp). Needs PyTorch and the tensorboard package
(tests/python/tb-env.sh).

OUT/pytorch/sweep-a/, sweep-b/   PyTorch's own SummaryWriter: a "loss" scalar over 20 steps, then
                                 add_hparams(hparams, metrics), which writes the hparams (experiment,
                                 session start, session end) and the metric values into a sub-folder
                                 named by time.time() (the reader folds it into its parent run).
OUT/pytorch/hparams-only/        add_hparams only, then the parent's own event file removed: the
                                 parent folder is still the run.
OUT/tbapi/trial-1/               TensorBoard's own hparams API (tensorboard.plugins.hparams.summary_v2:
                                 hparams_config_pb and hparams_pb, the protos its hparams() writes),
                                 written with TensorBoard's EventFileWriter, beside tensor scalars.
OUT/tbapi/trial-2/               a session_start_info made by hand (plugin_data_pb2) with a list and a
                                 struct value (kept as their JSON text, with a problem line each).
OUT/expected.json                per run (named as `ls` names it): {"settings": {name: value},
                                 "scalars": {tag: {"last", "min", "max", "count"}}, "problems": N}
Usage: make_tensorboard_hparams.py OUT
"""
import json
import os
import shutil
import sys

import numpy as np


def f32(v):
    return float(np.float32(v))


def stats(values):
    return {"last": values[-1], "min": min(values), "max": max(values), "count": len(values)}


def pytorch_run(out, name, hparams, metrics, expected, keep_own_file=True):
    from torch.utils.tensorboard import SummaryWriter

    folder = os.path.join(out, "pytorch", name)
    w = SummaryWriter(log_dir=folder)
    losses = []
    if keep_own_file:
        for step in range(20):
            v = 2.0 / (step + 1) + 0.01 * len(name)
            w.add_scalar("loss", v, step)
            losses.append(f32(v))
    w.add_hparams(hparams, metrics)
    w.close()
    if not keep_own_file:
        for f in os.listdir(folder):
            if "tfevents" in f:
                os.remove(os.path.join(folder, f))
    subs = [d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d))]
    assert len(subs) == 1, subs  # the time.time() sub-folder
    scalars = {tag: stats([f32(v)]) for tag, v in metrics.items()}
    if losses:
        scalars["loss"] = stats(losses)
    # What SummaryWriter wrote, read back with TensorBoard's own protos (PyTorch writes a bool as a
    # number: isinstance(True, int)).
    expected["pytorch/" + name] = {"settings": written_hparams(os.path.join(folder, subs[0])), "scalars": scalars, "problems": 0}


def written_hparams(folder):
    from google.protobuf import json_format
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    from tensorboard.plugins.hparams import plugin_data_pb2

    settings = {}
    for f in sorted(os.listdir(folder)):
        for event in EventFileLoader(os.path.join(folder, f)).Load():
            for v in event.summary.value:
                if v.metadata.plugin_data.plugin_name != "hparams":
                    continue
                data = plugin_data_pb2.HParamsPluginData.FromString(v.metadata.plugin_data.content)
                if data.HasField("session_start_info"):
                    for k, value in data.session_start_info.hparams.items():
                        settings[k] = json_format.MessageToDict(value)
    return settings


def tbapi_runs(out, expected):
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
    from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2
    from tensorboard.plugins.hparams import summary_v2 as hp
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    from google.protobuf import struct_pb2

    # trial-1: TensorBoard's own API
    folder = os.path.join(out, "tbapi", "trial-1")
    w = EventFileWriter(folder)
    hparams = {"lr": 0.01, "optimizer": "sgd", "dropout": 0.5, "use_bn": False, "layers": 3}
    config = hp.hparams_config_pb(hparams=[hp.HParam("lr"), hp.HParam("optimizer"), hp.HParam("dropout"), hp.HParam("use_bn"), hp.HParam("layers")],
                                  metrics=[hp.Metric("accuracy")])
    w.add_event(event_pb2.Event(wall_time=1.7e9, step=0, summary=config))
    w.add_event(event_pb2.Event(wall_time=1.7e9, step=0, summary=hp.hparams_pb(hparams, trial_id="trial-1", start_time_secs=1700000000)))
    acc = []
    for step in range(10):
        v = 0.5 + step * 0.04
        meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")) if step == 0 else None
        value = summary_pb2.Summary.Value(tag="accuracy", metadata=meta,
                                          tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_shape_pb2.TensorShapeProto(),
                                                                        float_val=[v]))
        w.add_event(event_pb2.Event(wall_time=1.7e9 + 1 + step, step=step, summary=summary_pb2.Summary(value=[value])))
        acc.append(f32(v))
    w.close()
    expected["tbapi/trial-1"] = {"settings": hparams, "scalars": {"accuracy": stats(acc)}, "problems": 0}

    # trial-2: hparams of types a table cell does not hold
    folder = os.path.join(out, "tbapi", "trial-2")
    w = EventFileWriter(folder)
    info = plugin_data_pb2.SessionStartInfo(group_name="g", start_time_secs=1700000100)
    info.hparams["lr"].number_value = 0.02
    info.hparams["sizes"].list_value.values.add().number_value = 1
    info.hparams["sizes"].list_value.values.add().number_value = 2
    info.hparams["opts"].struct_value.fields["beta"].number_value = 0.9
    content = plugin_data_pb2.HParamsPluginData(version=0, session_start_info=info).SerializeToString()
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=metadata.PLUGIN_NAME, content=content))
    value = summary_pb2.Summary.Value(tag=metadata.SESSION_START_INFO_TAG, metadata=meta,
                                      tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b""]))
    w.add_event(event_pb2.Event(wall_time=1.7e9 + 100, step=0, summary=summary_pb2.Summary(value=[value])))
    w.close()
    expected["tbapi/trial-2"] = {"settings": {"lr": 0.02, "sizes": "[1.0,2.0]", "opts": "{\"beta\":0.9}"}, "scalars": {}, "problems": 2}
    # the raw content of trial-1's session start, for the parser's own tests (truncations, garbage)
    ssi = hp.hparams_pb(hparams, trial_id="trial-1", start_time_secs=1700000000).value[0].metadata.plugin_data.content
    with open(os.path.join(out, "session_start_info.bin"), "wb") as f:
        f.write(ssi)
    del struct_pb2, api_pb2


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expected = {}
    pytorch_run(out, "sweep-a", {"lr": 0.001, "batch": 64, "optimizer": "adam", "amsgrad": True}, {"hparam/accuracy": 0.8, "hparam/loss": 0.3}, expected)
    pytorch_run(out, "sweep-b", {"lr": 0.0001, "batch": 32, "optimizer": "adam", "amsgrad": False}, {"hparam/accuracy": 0.7, "hparam/loss": 0.4}, expected)
    pytorch_run(out, "hparams-only", {"lr": 0.005, "batch": 16}, {"hparam/accuracy": 0.6}, expected, keep_own_file=False)
    tbapi_runs(out, expected)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
