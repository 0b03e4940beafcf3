# Reduces a training checkpoint to the demo's: the generator only, its floating tensors as float16
# (loading copies them into the float32 model), plus the fixed noise, config, epoch, step, format.
import sys, torch
src, dst = sys.argv[1], sys.argv[2]
ck = torch.load(src, map_location='cpu')
g = {k: (v.half() if v.is_floating_point() else v) for k, v in ck['G_state_dict'].items()}
out = {k: ck[k] for k in ('format', 'epoch', 'step', 'noise', 'config')}
out['G_state_dict'] = g
torch.save(out, dst)
print(ck['step'], ck['epoch'])
