"""The seed tutorials' programs, as one gradcli command's arguments each (shared by the view tests)."""

CUBE = ("(2*x)**3", "--at", "x=2")
MEAN = ("y = 2*x; z = y**3; out = z.mean()", "--at", "x=[[1.8528,0.2083],[1.5296,0.3136]]")
LINEAR = (
    "y = matmul(X, W) + b; loss = sum(y**2)",
    "--at",
    "W=[[1,2],[3,4]]",
    "--at",
    "b=[0.5,1]",
    "--const",
    "X=[[1,0.5],[0.2,0.8]]",
)
