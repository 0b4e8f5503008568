import torch


class ClassificationIterator:
    def __init__(self, device_id):
        self.device_id = device_id

    def next_batch(self):
        from twins._accel import accel, accel_module

        images = torch.rand(2, 3, 4, 4).to(torch.device(accel(), self.device_id))
        labels = torch.tensor([3, 7])
        with accel_module().device(self.device_id):
            return images, labels.to(accel())
