	.file	"<string>"
	.functype	dot (i32, i32, i32) -> (i32)
	.functype	halide_error_buffer_argument_is_null (i32, i32) -> (i32)
	.functype	halide_error_bad_dimensions (i32, i32, i32, i32) -> (i32)
	.functype	halide_error_host_is_null (i32, i32) -> (i32)
	.functype	halide_error_constraint_violated (i32, i32, i32, i32, i32) -> (i32)
	.functype	halide_error_bad_type (i32, i32, i32, i32) -> (i32)
	.functype	halide_error_access_out_of_bounds (i32, i32, i32, i32, i32, i32, i32) -> (i32)
	.section	.text.dot,"",@
	.globl	dot
	.type	dot,@function
dot:
	.functype	dot (i32, i32, i32) -> (i32)
	.local  	i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
	block   	
	local.get	0
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	call	halide_error_buffer_argument_is_null
	return
.LBB0_2:
	end_block
	block   	
	local.get	0
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	local.get	3
	i32.const	1
	call	halide_error_bad_dimensions
	return
.LBB0_4:
	end_block
	block   	
	local.get	0
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	4
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	call	halide_error_host_is_null
	return
.LBB0_6:
	end_block
	block   	
	local.get	1
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	call	halide_error_buffer_argument_is_null
	return
.LBB0_8:
	end_block
	block   	
	local.get	1
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	local.get	3
	i32.const	1
	call	halide_error_bad_dimensions
	return
.LBB0_10:
	end_block
	block   	
	local.get	1
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	5
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	call	halide_error_host_is_null
	return
.LBB0_12:
	end_block
	block   	
	local.get	2
	br_if   	0
	i32.const	0
	i32.const	.L.str.2
	call	halide_error_buffer_argument_is_null
	return
.LBB0_14:
	end_block
	block   	
	local.get	2
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.2
	local.get	3
	i32.const	1
	call	halide_error_bad_dimensions
	return
.LBB0_16:
	end_block
	block   	
	local.get	2
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	6
	br_if   	0
	i32.const	0
	i32.const	.L.str.2
	call	halide_error_host_is_null
	return
.LBB0_18:
	end_block
	block   	
	local.get	0
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	7
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.3
	local.get	7
	i32.const	.L.str.4
	i32.const	1
	call	halide_error_constraint_violated
	return
.LBB0_20:
	end_block
	block   	
	local.get	0
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	0
	i32.const	69632
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	local.get	0
	i32.const	69632
	call	halide_error_bad_type
	return
.LBB0_22:
	end_block
	block   	
	local.get	1
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	0
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	7
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.5
	local.get	7
	i32.const	.L.str.4
	i32.const	1
	call	halide_error_constraint_violated
	return
.LBB0_24:
	end_block
	block   	
	local.get	1
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	1
	i32.const	69632
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	local.get	1
	i32.const	69632
	call	halide_error_bad_type
	return
.LBB0_26:
	end_block
	block   	
	local.get	2
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	1
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	7
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.6
	local.get	7
	i32.const	.L.str.4
	i32.const	1
	call	halide_error_constraint_violated
	return
.LBB0_28:
	end_block
	block   	
	local.get	2
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	7
	i32.const	73728
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.2
	local.get	7
	i32.const	73728
	call	halide_error_bad_type
	return
.LBB0_30:
	end_block
	local.get	3
	i32.load	0
	local.set	8
	local.get	0
	i32.load	0
	local.set	9
	local.get	0
	i32.const	4
	i32.add 
	i32.load	0
	local.set	10
	block   	
	local.get	1
	i32.const	4
	i32.add 
	i32.load	0
	local.get	1
	i32.load	0
	local.tee	11
	i32.add 
	i32.const	-1
	i32.add 
	local.tee	12
	local.get	11
	i32.sub 
	local.tee	0
	i32.const	4
	i32.add 
	local.tee	13
	i32.const	-4
	i32.and 
	i32.const	-4
	i32.add 
	local.tee	1
	local.get	0
	i32.const	-3
	i32.add 
	local.tee	14
	local.get	1
	local.get	14
	i32.lt_s
	i32.select
	local.get	11
	i32.add 
	local.tee	15
	i32.const	1
	i32.shl 
	i32.const	7
	i32.add 
	local.tee	1
	local.get	14
	i32.const	31
	i32.shr_s
	local.get	14
	i32.and 
	local.get	11
	i32.add 
	local.tee	16
	i32.const	1
	i32.shl 
	local.tee	7
	i32.lt_s
	local.tee	17
	br_if   	0
	local.get	7
	local.get	8
	i32.ge_s
	local.get	1
	local.get	3
	i32.const	4
	i32.add 
	i32.load	0
	local.get	8
	i32.add 
	local.tee	3
	i32.lt_s
	i32.and 
	br_if   	0
	i32.const	0
	i32.const	.L.str.7
	i32.const	0
	local.get	7
	local.get	1
	local.get	8
	local.get	3
	i32.const	-1
	i32.add 
	call	halide_error_access_out_of_bounds
	return
.LBB0_33:
	end_block
	block   	
	local.get	17
	br_if   	0
	local.get	7
	local.get	9
	i32.ge_s
	local.get	1
	local.get	10
	local.get	9
	i32.add 
	local.tee	3
	i32.lt_s
	i32.and 
	br_if   	0
	i32.const	0
	i32.const	.L.str.8
	i32.const	0
	local.get	7
	local.get	1
	local.get	9
	local.get	3
	i32.const	-1
	i32.add 
	call	halide_error_access_out_of_bounds
	return
.LBB0_36:
	end_block
	block   	
	local.get	15
	i32.const	3
	i32.add 
	local.tee	1
	local.get	16
	i32.lt_s
	br_if   	0
	local.get	0
	i32.const	2
	i32.gt_s
	br_if   	0
	i32.const	0
	i32.const	.L.str.9
	i32.const	0
	local.get	16
	local.get	1
	local.get	11
	local.get	12
	call	halide_error_access_out_of_bounds
	return
.LBB0_39:
	end_block
	local.get	13
	i32.const	2
	i32.shr_s
	local.tee	17
	local.get	14
	i32.const	2
	i32.shr_s
	i32.const	1
	i32.add 
	local.tee	0
	local.get	17
	local.get	0
	i32.lt_s
	i32.select
	local.tee	0
	local.get	17
	i32.const	31
	i32.shr_s
	local.get	17
	i32.and 
	local.tee	3
	local.get	0
	local.get	3
	i32.gt_s
	i32.select
	local.set	16
	block   	
	local.get	0
	i32.const	1
	i32.lt_s
	br_if   	0
	local.get	5
	local.get	3
	i32.const	3
	i32.shl 
	local.get	11
	i32.const	1
	i32.shl 
	i32.add 
	local.tee	1
	local.get	9
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	local.set	0
	local.get	4
	local.get	1
	local.get	8
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	local.set	1
	local.get	16
	local.get	3
	i32.sub 
	local.set	7
	local.get	6
	local.get	3
	i32.const	4
	i32.shl 
	i32.add 
	local.set	3
.LBB0_41:
	loop    	
	local.get	3
	local.get	1
	v128.load	0:p2align=1
	local.get	0
	v128.load	0:p2align=1
	i32x4.dot_i16x8_s
	v128.store	0:p2align=2
	local.get	3
	i32.const	16
	i32.add 
	local.set	3
	local.get	0
	i32.const	16
	i32.add 
	local.set	0
	local.get	1
	i32.const	16
	i32.add 
	local.set	1
	local.get	7
	i32.const	-1
	i32.add 
	local.tee	7
	br_if   	0
.LBB0_42:
	end_loop
	end_block
	block   	
	local.get	17
	local.get	16
	i32.le_s
	br_if   	0
	local.get	17
	local.get	16
	i32.sub 
	local.set	1
	local.get	16
	i32.const	2
	i32.shl 
	local.set	0
.LBB0_44:
	loop    	
	local.get	6
	local.get	0
	local.get	14
	local.get	0
	local.get	14
	i32.lt_s
	i32.select
	local.tee	3
	i32.const	2
	i32.shl 
	i32.add 
	local.get	4
	local.get	3
	local.get	11
	i32.add 
	i32.const	1
	i32.shl 
	local.tee	3
	local.get	8
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	v128.load	0:p2align=1
	local.get	5
	local.get	3
	local.get	9
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	v128.load	0:p2align=1
	i32x4.dot_i16x8_s
	v128.store	0:p2align=2
	local.get	0
	i32.const	4
	i32.add 
	local.set	0
	local.get	1
	i32.const	-1
	i32.add 
	local.tee	1
	br_if   	0
.LBB0_45:
	end_loop
	end_block
	local.get	2
	i32.const	16
	i32.add 
	local.tee	0
	local.get	0
	i64.load	0
	i64.const	1
	i64.or  
	i64.store	0
	i32.const	0
	end_function

	.type	.L.str.0,@object
	.section	.rodata..L.str.0,"",@
.L.str.0:
	.asciz	"a"
	.size	.L.str.0, 2

	.type	.L.str.1,@object
	.section	.rodata..L.str.1,"",@
.L.str.1:
	.asciz	"b"
	.size	.L.str.1, 2

	.type	.L.str.2,@object
	.section	.rodata..L.str.2,"",@
.L.str.2:
	.asciz	"dot"
	.size	.L.str.2, 4

	.type	.L.str.3,@object
	.section	.rodata..L.str.3,"",@
.L.str.3:
	.asciz	"a.stride.0"
	.size	.L.str.3, 11

	.type	.L.str.4,@object
	.section	.rodata..L.str.4,"",@
.L.str.4:
	.asciz	"1"
	.size	.L.str.4, 2

	.type	.L.str.5,@object
	.section	.rodata..L.str.5,"",@
.L.str.5:
	.asciz	"b.stride.0"
	.size	.L.str.5, 11

	.type	.L.str.6,@object
	.section	.rodata..L.str.6,"",@
.L.str.6:
	.asciz	"dot.stride.0"
	.size	.L.str.6, 13

	.type	.L.str.7,@object
	.section	.rodata..L.str.7,"",@
.L.str.7:
	.asciz	"Input buffer a"
	.size	.L.str.7, 15

	.type	.L.str.8,@object
	.section	.rodata..L.str.8,"",@
.L.str.8:
	.asciz	"Input buffer b"
	.size	.L.str.8, 15

	.type	.L.str.9,@object
	.section	.rodata..L.str.9,"",@
	.p2align	4, 0x0
.L.str.9:
	.asciz	"Output buffer dot"
	.size	.L.str.9, 18

	.section	.custom_section.target_features,"",@
	.int8	3
	.int8	43
	.int8	19
	.ascii	"nontrapping-fptoint"
	.int8	43
	.int8	8
	.ascii	"sign-ext"
	.int8	43
	.int8	7
	.ascii	"simd128"
	.section	.rodata..L.str.9,"",@
