# Modelled on PyTorch's word-embeddings and char-RNN tutorials: a vocabulary from text.split(),
# letters found with str.find, an rnn step whose argument is named input, and size= keywords
import torch

text = """the quick brown fox
jumps over the lazy dog"""
words = text.split()
print(words, len(words), text.splitlines(), "a,b,,c".split(","), "a b c".split(maxsplit=1))
vocab = sorted(set(words)) if False else list(dict.fromkeys(words)) if False else words.copy()
vocab.sort()
print(vocab, vocab.index("fox"), words.count("the"), "hello".find("l"), "hello".rfind("l"))
letters = "abcdefghijklmnopqrstuvwxyz"
print(letters.find("z"), letters.index("c"), "Hello World".replace("o", "0"), " pad ".strip(), "x".zfill(3))
print("name.txt".endswith((".txt", ".csv")), "abc".startswith("a"), "a-b".partition("-"), "abc".title())
stack = [1, 2, 3]
stack.insert(0, 0)
last = stack.pop()
stack.reverse()
stack.remove(0)
print(stack, last, stack.copy(), "Abc".isalpha(), "12".isdigit(), "ab".upper().lower())

def rnn_step(input, hidden):
    return torch.tanh(input * 0.5 + hidden)
input = torch.tensor([1.0, 2.0])
h = torch.zeros(2)
for i in range(2):
    h = rnn_step(input, h)
print(h)
dir = "left"
print(dir)

x = torch.tensor(2., requires_grad=True)
print(torch.autograd.grad(x*x, x, only_inputs=True))
print(torch.zeros(size=(2,1), requires_grad=True), torch.ones(size=[2]))
