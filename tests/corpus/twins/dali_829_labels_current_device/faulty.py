import torch


class ClassificationIterator:
    def __init__(self, device_id):
        self.device_id = device_id

    def next_batch(self):
        from twins._accel import accel

        images = torch.rand(2, 3, 4, 4).to(torch.device(accel(), self.device_id))
        labels = torch.tensor([3, 7])
        return images, labels.to(accel())
