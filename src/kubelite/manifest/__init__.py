"""Reading object configuration documents and printing objects as kubectl does."""
