"""The renderers of the docs' generated tables, a module per results file;
validation/results/render.py maps each table of a file to its renderer."""
