# Reduces a training checkpoint to the demo's: one generator, its floating tensors as float16
# (loading copies them into the float32 model), plus the fixed noise, config, epoch, step, format.
# The generator is G_ema where the checkpoint has one (G_source "ema": what sample, render, serve and
# the explorer use by default), else the trained G (G_source "raw").
import sys, torch
src, dst = sys.argv[1], sys.argv[2]
ck = torch.load(src, map_location='cpu', weights_only=False)  # our own file; torch 2.6+ defaults to weights_only
ema = ck.get('G_ema_state_dict')
state = ema if ema is not None else ck['G_state_dict']
g = {k: (v.half() if v.is_floating_point() else v) for k, v in state.items()}
out = {k: ck[k] for k in ('format', 'epoch', 'step', 'noise', 'config')}
out['G_state_dict'] = g
out['G_source'] = 'ema' if ema is not None else 'raw'
torch.save(out, dst)
print(ck['step'], ck['epoch'], out['G_source'])
