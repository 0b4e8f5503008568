import numpy as np
import torch


def mixup(data, alpha=1.0):
    lambda_ = float(np.clip(np.random.default_rng(int(torch.randint(0, 1000, ())))
                            .beta(alpha, alpha), 0.0, 1.0))
    lambda_tensor = torch.tensor([lambda_], device=data.device, dtype=data.dtype)
    indices = torch.arange(data.shape[0] - 1, -1, -1)
    return lambda_tensor * data + (1 - lambda_tensor) * data[indices]
