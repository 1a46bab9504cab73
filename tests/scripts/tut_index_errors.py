# Indexing mistakes a learner makes, and the dimension each IndexError names
import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_()
idx = torch.tensor([5])
attempts = ["x[0, 5]", "x[None, 0, 5]", "x[..., 5]", "x[..., 0, 5]", "x[1, -4]", "x[0][5]",
            "x[:, :, 0]", "x[0, 1:2, 5]", "x[[5]]", "x[:, [5]]", "x[0, [5]]", "x[[0, 1], [5, 0]]",
            "x[:, idx]", "x[None, :, [4]]", "x[1, 1:, [3]]", "x[[5, 7]]", "x[:, [1, 9, -8]]"]
for k, text in enumerate(attempts):
    try:
        if k == 0:
            x[0, 5]
        elif k == 1:
            x[None, 0, 5]
        elif k == 2:
            x[..., 5]
        elif k == 3:
            x[..., 0, 5]
        elif k == 4:
            x[1, -4]
        elif k == 5:
            x[0][5]
        elif k == 6:
            x[:, :, 0]
        elif k == 7:
            x[0, 1:2, 5]
        elif k == 8:
            x[[5]]
        elif k == 9:
            x[:, [5]]
        elif k == 10:
            x[0, [5]]
        elif k == 11:
            x[[0, 1], [5, 0]]
        elif k == 12:
            x[:, idx]
        elif k == 13:
            x[None, :, [4]]
        elif k == 14:
            x[1, 1:, [3]]
        elif k == 15:
            x[[5, 7]]
        else:
            x[:, [1, 9, -8]]
    except IndexError as e:
        print(f"{text:20} IndexError: {e}")
print(x[1, -3], x[..., -1].sum())
