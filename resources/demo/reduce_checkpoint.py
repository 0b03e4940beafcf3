# Reduces a training checkpoint to the demo's: one generator, its floating tensors as float16
# (loading copies them into the float32 model), plus the fixed noise, config, epoch, step, format.
# Usage: reduce_checkpoint.py SRC DST [ema|raw]
# The generator is G_ema where the checkpoint has one (G_source "ema": what sample, render, serve and
# the explorer use by default), else the trained G (G_source "raw"); `raw` takes the trained G even
# where there is a G_ema (pick by `eval --metric swd --generator ema|raw`: in a short run the
# average can lag behind G).
import sys, torch
src, dst = sys.argv[1], sys.argv[2]
want = sys.argv[3] if len(sys.argv) > 3 else 'ema'
if want not in ('ema', 'raw'):
    sys.exit("reduce_checkpoint.py: the third argument is ema or raw, not '%s'" % want)
ck = torch.load(src, map_location='cpu', weights_only=False)  # our own file; torch 2.6+ defaults to weights_only
ema = ck.get('G_ema_state_dict') if want == 'ema' else None
state = ema if ema is not None else ck['G_state_dict']
g = {k: (v.half() if v.is_floating_point() else v) for k, v in state.items()}
out = {k: ck[k] for k in ('format', 'epoch', 'step', 'noise', 'config')}
out['G_state_dict'] = g
out['G_source'] = 'ema' if ema is not None else 'raw'
torch.save(out, dst)
print(ck['step'], ck['epoch'], out['G_source'])
