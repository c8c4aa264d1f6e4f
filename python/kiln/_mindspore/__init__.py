"""kiln.mindspore's parts that need no MindSpore: output shape rules of Kiln's operators."""
